-- actae_auditor can read every ledger table and execute the read functions, and can
-- neither write a table nor execute any other function.
begin;
\ir ../helpers.psql
select plan(15);

select actae.record_event('tap-audit', 'e', '{}');
select is(
    (select string_agg(p.oid::regprocedure::text, ', ' order by p.oid::regprocedure::text)
     from pg_proc as p
     where p.pronamespace = 'actae'::regnamespace
       and has_function_privilege('actae_auditor', p.oid, 'execute')),
    (select string_agg(p.oid::regprocedure::text, ', ' order by p.oid::regprocedure::text)
     from pg_proc as p
     where p.pronamespace = 'actae'::regnamespace
       and p.proname in ('get_execution', 'list_executions', 'list_expired_leases',
           'get_channel', 'list_events', 'get_state', 'channel_topic',
           'get_run', 'list_runs', 'queue_topic', 'get_execution_trace',
           'langgraph_get_tuple', 'langgraph_list', 'list_completed',
           'list_channels', 'timeline', 'fork_tree', 'diff_states', 'decision_trail',
           'follow_channel', 'channel_lineage')),
    'the auditor can execute exactly the read functions');
select is(
    (select string_agg(c.relname, ',') from pg_class as c
     where c.relnamespace = 'actae'::regnamespace and c.relkind in ('r', 'p')
       and has_table_privilege('actae_auditor', c.oid,
           'insert, update, delete, truncate, references, trigger')),
    null, 'the auditor holds no write privilege on any table');

set local role actae_auditor;
select lives_ok(format('select count(*) from actae.%I', t), format('auditor selects %s', t))
from unnest(array['channels', 'events', 'snapshots', 'operations', 'executions']) as t;
select lives_ok($$select * from actae.list_events('tap-audit')$$, 'auditor lists events');
select lives_ok($$select actae.get_channel('tap-audit')$$, 'auditor reads a channel');
select throws_ok($$delete from actae.events$$, '42501', null, 'auditor cannot delete');
select throws_ok($$update actae.channels set head_cursor = 0$$, '42501', null,
    'auditor cannot update');
select throws_ok($$insert into actae.channels (channel_id) values ('x')$$, '42501', null,
    'auditor cannot insert');
select throws_ok($$select actae.record_event('tap-audit', 'e', '{}')$$, '42501', null,
    'auditor cannot record events');
select throws_ok($$select actae.claim_execution('tap-audit', 'k', 't', '{}')$$, '42501', null,
    'auditor cannot claim');
select throws_ok($$select actae.fork_channel('tap-audit', 1)$$, '42501', null,
    'auditor cannot fork');
reset role;

select * from finish();
rollback;
