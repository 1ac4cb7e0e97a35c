-- SPEC 6: every primary key, unique constraint and unique index of every Actae table leads
-- with channel_id, so the schema can be distributed by channel_id (sql/citus/). A new
-- table or key that breaks this fails here. schema_migrations (the migrate runner's
-- bookkeeping), quotas (one row per tenant, migration 0016), topic_secret (one row,
-- migration 0020) and tenant_names (one row per tenant, migration 0025) are the exceptions:
-- small tables that are reference tables on Citus.
begin;
select plan(4);

create temp view actae_keys as
select
    i.indrelid::regclass::text as table_name,
    i.indexrelid::regclass::text as index_name,
    (
        select a.attname from pg_catalog.pg_attribute as a
        where a.attrelid = i.indrelid and a.attnum = i.indkey[0]
    ) as first_column
from pg_catalog.pg_index as i
inner join pg_catalog.pg_class as t on i.indrelid = t.oid
where t.relnamespace = 'actae'::regnamespace
    and t.relkind in ('r', 'p')
    and t.relname not in (
        'schema_migrations', 'quotas', 'topic_secret', 'tenant_names'
    )
    and (i.indisprimary or i.indisunique);

select is_empty(
    $$ select table_name, index_name, first_column from actae_keys
       where first_column is distinct from 'channel_id' $$,
    'every primary key and unique constraint or index leads with channel_id'
);
select cmp_ok(
    (select count(*) from actae_keys), '>=', 6::bigint,
    'the check sees the keys of channels, events, snapshots (2), operations, executions'
);
select set_eq(
    $$ select t.relname::text from pg_catalog.pg_class as t
       where t.relnamespace = 'actae'::regnamespace and t.relkind in ('r', 'p')
           and t.relname not in (
        'schema_migrations', 'quotas', 'topic_secret', 'tenant_names'
    ) $$,
    $$ select distinct split_part(table_name, '.', 2) from actae_keys
       where index_name like '%pkey' $$,
    'every Actae table has a primary key'
);
select is_empty(
    $$ select c.conname from pg_catalog.pg_constraint as c
       where c.connamespace = 'actae'::regnamespace and c.contype = 'x' $$,
    'no exclusion constraints (they cannot be distributed either)'
);

select * from finish();
rollback;
