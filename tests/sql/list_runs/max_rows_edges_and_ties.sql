-- list_runs' max_rows is 1-100000: 100000 is accepted, 100001 and null are AC400 naming
-- max_rows. Runs created at the same instant are listed by channel_id. The clock is pinned
-- for the test (actae._now replaced inside its transaction).
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql

select plan(4);

create or replace function actae._now() returns timestamptz language sql volatile
as $$ select '2030-01-01 00:00:00+00'::timestamptz $$;
select actae.start_run('tap-lr-t-' || c, 'a', '1', 'tap-q-lr-t')
from unnest(array['b', 'c', 'a']) as c;
select is((select array_agg(channel_id) from actae.list_runs('tap-q-lr-t', null, null,
    100000)), array['tap-lr-t-a', 'tap-lr-t-b', 'tap-lr-t-c'],
    'max_rows 100000 is accepted; a tie on created_at is listed by channel_id');
select is((select array_agg(channel_id) from actae.list_runs('tap-q-lr-t', null, null, 2)),
    array['tap-lr-t-a', 'tap-lr-t-b'], 'the first max_rows of that order');
select is(pg_temp.error_of($$select * from actae.list_runs(null, null, null, 100001)$$)
    -> 'detail' ->> 'argument', 'max_rows', 'max_rows 100001 is AC400');
select is(pg_temp.error_of($$select * from actae.list_runs(null, null, null, null)$$)
    -> 'detail' ->> 'argument', 'max_rows', 'a null max_rows is AC400');

select * from finish();
rollback;
