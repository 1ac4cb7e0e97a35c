-- timeline pages: at most max_rows rows ending at a whole clock, so paging with after_clock
-- = the last row's clock returns every row exactly once; a single clock with more points
-- than max_rows comes whole.
begin;
\ir ../helpers.psql
\ir ../console_helpers.psql
select plan(4);

select pg_temp.story('tap-tlp');
select pg_temp.record_steps('tap-tlp', 20);

select is(
    (select array_agg(t) from pg_temp.timeline_paged('tap-tlp', 2) as t),
    pg_temp.timeline_whole('tap-tlp'),
    'pages of 2 rows give the whole timeline, once each, in order');
select is(
    (select array_agg(t) from pg_temp.timeline_paged('tap-tlp', 5) as t),
    pg_temp.timeline_whole('tap-tlp'),
    'pages of 5 rows too');
select results_eq(
    $$select kind from actae.timeline('tap-tlp', null, 2)$$,
    $$values ('event'), ('claimed'), ('completed')$$,
    'a clock with more rows than max_rows comes whole');
select is((select count(*) from actae.timeline('tap-tlp', null, 4)), 3::bigint,
    'a page stops before a clock it cannot hold whole');

select * from finish();
rollback;
