-- max_rows is 1..100000 (0, 100001 and null are AC400) and caps the rows returned.
begin;
\ir ../helpers.psql
select plan(6);

select actae.claim_execution('tap-list-max', 'k' || i, 't', '{}') from generate_series(1, 3) as i;
select is((select count(*) from actae.list_executions('tap-list-max', null, false, 2)), 2::bigint,
    'max_rows 2 returns 2 of 3');
select is((select count(*) from actae.list_executions('tap-list-max', null, false, 1)), 1::bigint,
    'max_rows 1 is accepted');
select is((select count(*) from actae.list_executions('tap-list-max', null, false, 100000)),
    3::bigint, 'max_rows 100000 is accepted');
select throws_ok($$select * from actae.list_executions('tap-list-max', null, false, 0)$$,
    'AC400', 'max_rows must be between 1 and 100000', 'max_rows 0 is AC400');
select throws_ok($$select * from actae.list_executions('tap-list-max', null, false, 100001)$$,
    'AC400', null, 'max_rows 100001 is AC400');
select throws_ok($$select * from actae.list_executions('tap-list-max', null, false, null)$$,
    'AC400', 'max_rows is required', 'a null max_rows is AC400');

select * from finish();
rollback;
