-- list_executions filters by channel (its own rows), status and lapsed lease, oldest
-- first; with no filter it lists every channel.
begin;
\ir ../helpers.psql
select plan(7);

select actae.claim_execution('tap-list-a', 'live', 't', '{}');
select pg_temp.expire(execution_id) from actae.claim_execution('tap-list-a', 'lapsed', 't', '{}');
select pg_temp.completed('tap-list-a', 'done', 't', '1');
select actae.fail_execution(execution_id, 'x', claim_token)
from actae.claim_execution('tap-list-a', 'failed', 't', '{}');
select actae.claim_execution('tap-list-b', 'other', 't', '{}');

select results_eq(
    $$select key_name from actae.list_executions('tap-list-a')$$,
    $$values ('live'::text), ('lapsed'), ('done'), ('failed')$$,
    'by channel: that channel''s rows, oldest first');
select results_eq(
    $$select key_name from actae.list_executions('tap-list-a', 'completed')$$,
    $$values ('done'::text)$$, 'by status completed');
select results_eq(
    $$select key_name from actae.list_executions('tap-list-a', 'claimed')$$,
    $$values ('live'::text), ('lapsed')$$, 'by status claimed');
select results_eq(
    $$select key_name from actae.list_executions('tap-list-a', null, true)$$,
    $$values ('lapsed'::text)$$, 'lease_expired keeps only lapsed claimed/in_progress rows');
select results_eq(
    $$select key_name from actae.list_executions(null, null, false, 100000)
      where channel_id like 'tap-list-%' order by key_name$$,
    $$values ('done'::text), ('failed'), ('lapsed'), ('live'), ('other')$$,
    'no channel: every channel');
select throws_ok($$select * from actae.list_executions('tap-list-a', 'running')$$, 'AC400', null,
    'an unknown status is AC400');
select throws_ok($$select * from actae.list_executions(repeat('c', 257))$$, 'AC400', null,
    'a channel_id over 256 bytes is AC400');

select * from finish();
rollback;
