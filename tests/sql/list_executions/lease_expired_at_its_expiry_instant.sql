-- list_executions(lease_expired => true) keeps a claimed/in_progress row from the very
-- instant of its lease_expires_at (one boundary with claim_execution's reclaim and
-- list_expired_leases), in one channel and across all channels, and not a moment before.
-- The clock is pinned for the test (actae._now replaced inside its transaction).
begin;
\ir ../helpers.psql
select plan(4);

create or replace function actae._now() returns timestamptz language sql volatile
as $$ select '2030-01-01 00:00:00+00'::timestamptz $$;
select actae.claim_execution('tap-lex', 'at', 't', '{}', null, 10);
select actae.claim_execution('tap-lex', 'after', 't', '{}', null, 10);
update actae.executions set lease_expires_at = '2030-01-01 00:00:00+00'
where channel_id = 'tap-lex' and key_name = 'at';
update actae.executions set lease_expires_at = '2030-01-01 00:00:00.000001+00'
where channel_id = 'tap-lex' and key_name = 'after';

select results_eq(
    $$select key_name from actae.list_executions('tap-lex', null, true)$$,
    $$values ('at'::text)$$,
    'one channel: lapsed at its expiry instant, live a microsecond before it');
select results_eq(
    $$select key_name from actae.list_executions(null, null, true, 100000)
      where channel_id = 'tap-lex'$$,
    $$values ('at'::text)$$,
    'all channels: the same boundary');
select results_eq(
    $$select key_name from actae.list_expired_leases(100000) where channel_id = 'tap-lex'$$,
    $$values ('at'::text)$$,
    'as list_expired_leases lists it');
select is((select outcome from actae.claim_execution('tap-lex', 'at', 't', '{}')),
    'reclaimed', 'and as a claim at that instant reclaims it');

select * from finish();
rollback;
