-- At exactly lease_expires_at a lease has lapsed: a claim at that instant reclaims the
-- execution, as list_expired_leases lists it (one boundary for both). The clock is pinned
-- for the test (actae._now replaced inside its transaction).
begin;
\ir ../helpers.psql
select plan(2);

create or replace function actae._now() returns timestamptz language sql volatile
as $$ select '2030-01-01 00:00:00+00'::timestamptz $$;
select actae.claim_execution('tap-lx', 'k', 't', '{}', null, 10);
update actae.executions set lease_expires_at = '2030-01-01 00:00:00+00'
where channel_id = 'tap-lx';
select is((select count(*) from actae.list_expired_leases() where channel_id = 'tap-lx'),
    1::bigint, 'listed as expired at that instant');
select is((select outcome from actae.claim_execution('tap-lx', 'k', 't', '{}')), 'reclaimed',
    'and a claim at that instant reclaims it');

select * from finish();
rollback;
