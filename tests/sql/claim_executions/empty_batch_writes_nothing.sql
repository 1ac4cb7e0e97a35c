-- An empty batch returns no rows and writes nothing: its channel is not created (nor
-- counted against the tenant's channel quota, so a tenant at its quota is not refused
-- for it); its arguments are still checked.
begin;
\ir ../helpers.psql
select plan(6);

select is((select count(*) from actae.claim_executions('tap-ce-empty', '{}', '{}',
        '{}'::jsonb[])), 0::bigint, 'an empty batch returns no rows');
select is((select count(*) from actae.channels where channel_id = 'tap-ce-empty'), 0::bigint,
    '... and creates no channel');
select is(pg_temp.error_of($$select * from actae.claim_executions('', '{}', '{}',
        '{}'::jsonb[])$$) -> 'detail' ->> 'argument', 'channel_id',
    'a bad channel_id is refused for an empty batch too');
select is(pg_temp.error_of($$select * from actae.claim_executions('tap-ce-empty', '{}', '{}',
        '{}'::jsonb[], null, 0)$$) -> 'detail' ->> 'argument', 'lease_seconds',
    'so is a lease out of range');

select pg_temp.two_tenants('tap_ce_qa', 'tap_ce_qb', 'tap_ce_qla', 'tap_ce_qlb');
select actae.set_quota('tap_ce_qa', 0, null, null);
create temp table got (n bigint, e jsonb);
grant insert on got to public;
set local session authorization tap_ce_qla;
insert into got select (select count(*) from actae.claim_executions('tap-ce-quota', '{}',
        '{}', '{}'::jsonb[])), null;
insert into got select null, pg_temp.error_of($$select * from actae.claim_executions(
    'tap-ce-quota', array['k'], array['t'], array['{}']::jsonb[])$$);
reset session authorization;
select is((select n from got where n is not null), 0::bigint,
    'a tenant at a quota of 0 channels gets no rows for an empty batch, not AC429');
select is((select e ->> 'sqlstate' from got where e is not null), 'AC429',
    '... and AC429 for a batch that would create the channel');

select * from finish();
rollback;
