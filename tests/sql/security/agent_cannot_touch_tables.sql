-- actae_agent has no direct access to any relation in schema actae: it cannot select,
-- insert, update or delete, and cannot create objects there. It works only through the
-- API functions.
begin;
\ir ../helpers.psql
select plan(23);

select is(
    (select string_agg(c.relname, ',' order by c.relname) from pg_class as c
     where c.relnamespace = 'actae'::regnamespace and c.relkind in ('r', 'v', 'p', 'm')
       and has_table_privilege('actae_agent', c.oid,
           'select, insert, update, delete, truncate, references, trigger')),
    null, 'no privilege of any kind on any actae table or view');
select is(has_schema_privilege('actae_agent', 'actae', 'create'), false,
    'no create on schema actae');

set local role actae_agent;
select throws_ok(format('select * from actae.%I', t), '42501', null,
    format('agent cannot select from %s', t))
from unnest(array['channels', 'events', 'snapshots', 'operations', 'executions']) as t;
select throws_ok(format('delete from actae.%I', t), '42501', null,
    format('agent cannot delete from %s', t))
from unnest(array['channels', 'events', 'snapshots', 'operations', 'executions']) as t;
select throws_ok(format('update actae.%I set channel_id = channel_id', t), '42501', null,
    format('agent cannot update %s', t))
from unnest(array['channels', 'events', 'snapshots', 'operations', 'executions']) as t;
select throws_ok($$insert into actae.channels (channel_id) values ('x')$$, '42501', null,
    'agent cannot insert into channels');
select throws_ok($$insert into actae.events values ('x', 1, 't', '{}', null, 1, '', now())$$,
    '42501', null, 'agent cannot insert into events');
select throws_ok($$insert into actae.snapshots values ('x', 1, 1, '{}', now())$$,
    '42501', null, 'agent cannot insert into snapshots');
select throws_ok($$insert into actae.operations (channel_id, operation_id, kind,
        content_sha256, recorded_at) values ('x', 'o', 'k', '', now())$$,
    '42501', null, 'agent cannot insert into operations');
select throws_ok($$insert into actae.executions (channel_id, key_name) values ('x', 'k')$$,
    '42501', null, 'agent cannot insert into executions');
select throws_ok($$select * from actae.execution_leases$$, '42501', null,
    'agent cannot read the audit views');
reset role;

select * from finish();
rollback;
