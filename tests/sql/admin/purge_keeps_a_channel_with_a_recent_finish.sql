-- purge keeps a closed channel whose last activity is recent even when it is only a
-- finish: an execution claimed long ago (a long tool call, lease renewed by heartbeats)
-- that completed or failed within older_than keeps its channel, with no event after the
-- close. Once the finish is older than older_than the channel goes.
begin;
\ir ../helpers.psql
select plan(3);

select pg_temp.record_steps('tap-prf', 1);
create temp table c as select * from actae.claim_execution('tap-prf', 'long', 't', '{}', null, 86400);
select actae.close_channel('tap-prf');
update actae.channels set closed_at = closed_at - interval '3 days',
    created_at = created_at - interval '3 days' where channel_id = 'tap-prf';
update actae.events set recorded_at = recorded_at - interval '3 days'
where channel_id = 'tap-prf';
update actae.executions set created_at = created_at - interval '3 days',
    claimed_at = claimed_at - interval '3 days' where channel_id = 'tap-prf';
select actae.complete_execution(execution_id, claim_token, '{"done": true}') from c;

select actae.purge(interval '1 day', 100000);
select ok(exists (select 1 from actae.channels where channel_id = 'tap-prf'),
    'a closed channel whose execution finished within older_than is kept');
select is((select status from actae.executions where channel_id = 'tap-prf'), 'completed',
    'with its execution');
update actae.executions set finished_at = finished_at - interval '2 days'
where channel_id = 'tap-prf';
select actae.purge(interval '1 day', 100000);
select ok(not exists (select 1 from actae.channels where channel_id = 'tap-prf'),
    'once the finish is older than older_than, the channel is deleted');

select * from finish();
rollback;
