-- max_events is 1..100000 (0 and 100001 are AC400); after_cursor is required and not
-- negative; an unknown channel is AC404.
begin;
\ir ../helpers.psql
select plan(7);

select pg_temp.record_steps('tap-leb', 2);
select throws_ok($$select * from actae.list_events('tap-leb', 0, 0)$$, 'AC400',
    'max_events must be between 1 and 100000', 'max_events 0 is AC400');
select throws_ok($$select * from actae.list_events('tap-leb', 0, 100001)$$, 'AC400', null,
    'max_events 100001 is AC400');
select is((select count(*) from actae.list_events('tap-leb', 0, 1)), 1::bigint,
    'max_events 1 is accepted');
select is((select count(*) from actae.list_events('tap-leb', 0, 100000)), 2::bigint,
    'max_events 100000 is accepted');
select throws_ok($$select * from actae.list_events('tap-leb', -1)$$, 'AC400', null,
    'a negative after_cursor is AC400');
select throws_ok($$select * from actae.list_events('tap-leb', null)$$, 'AC400', null,
    'a null after_cursor is AC400');
select throws_ok($$select * from actae.list_events('tap-nowhere')$$, 'AC404', null,
    'an unknown channel is AC404');

select * from finish();
rollback;
