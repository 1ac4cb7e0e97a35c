-- A SQL NULL result is stored as JSON null (so "completed with nothing" is never confused
-- with "no result yet"), and replays as JSON null.
begin;
\ir ../helpers.psql
select plan(4);

create temp table claim as select * from actae.claim_execution('tap-null', 'k', 't', '{}');
create temp table done as
select * from actae.complete_execution(
    (select execution_id from claim), (select claim_token from claim), null);

select is(result, 'null'::jsonb, 'the returned result is JSON null') from done;
select is((select result from actae.executions where channel_id = 'tap-null'), 'null'::jsonb,
    'JSON null is stored, not SQL NULL');
select is((select result from actae.claim_execution('tap-null', 'k', 't', '{}')),
    'null'::jsonb, 'a replay returns JSON null');
create temp table omitted as select * from actae.claim_execution('tap-null', 'k2', 't', '{}');
select is(
    (select result from actae.complete_execution(o.execution_id, o.claim_token)),
    'null'::jsonb, 'an omitted result is JSON null too'
) from omitted as o;

select * from finish();
rollback;
