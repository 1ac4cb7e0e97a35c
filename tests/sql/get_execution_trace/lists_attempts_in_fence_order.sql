-- get_execution_trace lists the recorded traceparents of an execution's attempts in fence
-- order, without claim tokens; an execution with none gives no rows; a fork replaying an
-- inherited result reads the source's traces by the execution id it replays; unknown or
-- missing ids are AC404 / AC400; the auditor may read them, and purging the execution
-- deletes them.
begin;
\ir ../helpers.psql
select plan(8);

create temp table c1 as select * from actae.claim_execution('tap-tr4', 'k', 't', '{}');
select actae.set_execution_trace(execution_id, claim_token,
    '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01') from c1;
select pg_temp.expire(execution_id) from c1;
create temp table c2 as select * from actae.claim_execution('tap-tr4', 'k', 't', '{}');
select actae.set_execution_trace(execution_id, claim_token,
    '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b8-01') from c2;
select actae.complete_execution(execution_id, claim_token, '"done"') from c2;

select results_eq(
    $$select fence, traceparent from actae.get_execution_trace(
        (select execution_id from c1))$$,
    $$values (1::bigint, '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'::text),
             (2::bigint, '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b8-01'::text)$$,
    'both attempts, in fence order');

create temp table bare as select * from pg_temp.completed('tap-tr4', 'k2', 't', '1');
select is_empty(
    $$select * from actae.get_execution_trace((select execution_id from bare))$$,
    'an execution whose attempts recorded no trace has no rows');

select pg_temp.record_steps('tap-tr4', 1);
select actae.fork_channel('tap-tr4', 1, 'tap-tr4-fork');
create temp table replay as
select * from actae.claim_execution('tap-tr4-fork', 'k', 't', '{}');
select is((select outcome from replay), 'replayed', 'the fork replays the inherited result');
select is(
    (select array_agg(fence order by fence) from actae.get_execution_trace(
        (select execution_id from replay))),
    array[1, 2]::bigint[], 'and reads the traces of the run that did the work');

select throws_ok(
    $$select * from actae.get_execution_trace(gen_random_uuid())$$,
    'AC404', null, 'an unknown execution is AC404');
select throws_ok(
    $$select * from actae.get_execution_trace(null)$$,
    'AC400', 'execution_id is required', 'execution_id is required');

select set_config('tap.execution_id', (select execution_id::text from c1), true);
set local role actae_auditor;
select is(
    (select count(*)::integer from actae.get_execution_trace(
        current_setting('tap.execution_id')::uuid)),
    2, 'the auditor can read traces');
reset role;

delete from actae.executions where channel_id = 'tap-tr4';
select is(
    (select count(*)::integer from actae.execution_traces where channel_id = 'tap-tr4'),
    0, 'deleting executions (as purge does) deletes their traces');

select * from finish();
rollback;
