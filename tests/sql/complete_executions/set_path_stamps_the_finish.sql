-- complete_executions with channel_id (one UPDATE per element, not complete_execution)
-- stamps each row as the single call does: finished_at on the database clock, written_by
-- the completing login, the result and the channel's clock.
begin;
\ir ../helpers.psql
select plan(4);

select now() as started \gset
create temp table c as
select row_number() over () as n, b.*
from actae.claim_executions('tap-csf', array['a', 'b'], array['t', 't'],
    array['{}', '{}']::jsonb[]) as b;
create temp table done as
select row_number() over () as n, d.*
from actae.complete_executions(
    (select array_agg(execution_id order by n) from c),
    (select array_agg(claim_token order by n) from c),
    array['1', '2']::jsonb[], 'tap-csf') as d;

select is(
    (select count(*) from done
     where finished_at between :'started'::timestamptz and clock_timestamp()),
    2::bigint, 'each returned row has finished_at, the time of the completion');
select is(
    (select count(*) from actae.executions
     where channel_id = 'tap-csf' and finished_at between :'started'::timestamptz
         and clock_timestamp()),
    2::bigint, 'and it is stored');
select is(
    (select array_agg(distinct written_by::regrole::text) from actae.executions
     where channel_id = 'tap-csf'),
    array[session_user::text], 'written_by is the completing login');
select results_eq(
    $$select result from actae.executions where channel_id = 'tap-csf' order by key_name$$,
    $$values ('1'::jsonb), ('2')$$, 'each element''s result is stored');

select * from finish();
rollback;
