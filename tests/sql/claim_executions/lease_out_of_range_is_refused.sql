-- claim_executions refuses a lease_seconds outside 1..86400 (AC400 naming lease_seconds)
-- on its set path for new keys too: a lease already lapsed would let another worker
-- reclaim the key at once, and the tool would run twice.
begin;
\ir ../helpers.psql
select plan(3);

select throws_ok($$select * from actae.claim_executions('tap-bl', array['a'], array['t'],
    array['{}']::jsonb[], null, 0)$$, 'AC400', null, 'lease_seconds 0 is AC400');
select throws_ok($$select * from actae.claim_executions('tap-bl', array['a'], array['t'],
    array['{}']::jsonb[], null, 86401)$$, 'AC400', null, 'lease_seconds over 86400 is AC400');
select is((select count(*) from actae.executions where channel_id = 'tap-bl'), 0::bigint,
    'nothing was claimed');

select * from finish();
rollback;
