-- A reclaim with params that differ only outside dedup_fields (the same fingerprint) stores
-- the reclaimer's params: the row says what the attempt that owns it is running.
begin;
\ir ../helpers.psql
select plan(2);

create temp table c as
select * from actae.claim_execution('tap-rp', 'k', 't', '{"a": 1, "b": 1}', array['a']);
select actae.fail_execution(execution_id, 'x', claim_token, true) from c;
create temp table r as
select * from actae.claim_execution('tap-rp', 'k', 't', '{"a": 1, "b": 2}', array['a']);
select is((select outcome from r), 'reclaimed', 'the same fingerprint reclaims');
select is((select params from actae.executions where channel_id = 'tap-rp'),
    '{"a": 1, "b": 2}'::jsonb, 'and the row carries the reclaimer''s params');

select * from finish();
rollback;
