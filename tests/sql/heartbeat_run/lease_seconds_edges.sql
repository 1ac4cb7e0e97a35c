-- heartbeat_run's lease_seconds is 1-86400 (SPEC 3a): 86401 is AC400 naming lease_seconds and
-- leaves the run as it was; 86400 is accepted.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql

select plan(3);

create temp table c as select * from pg_temp.started_claim('tap-hr-edge', 'tap-q-hr-edge');
create temp table before as select pg_temp.run_json('tap-hr-edge') as j;
select is(pg_temp.error_of($$select actae.heartbeat_run('tap-hr-edge', claim_token, 86401)
    from c$$) -> 'detail' ->> 'argument', 'lease_seconds', 'lease_seconds 86401 is AC400');
select is(pg_temp.run_json('tap-hr-edge'), (select j from before), 'the run is untouched');
select is((select lease_expires_at - heartbeat_at from actae.heartbeat_run('tap-hr-edge',
    (select claim_token from c), 86400)), interval '86400 seconds',
    'lease_seconds 86400 is accepted');

select * from finish();
rollback;
