-- actae._execution_row, the API view of an execution row, gives every field the column of
-- the same name (checked on a row whose columns of one type all differ: fence and
-- attempt, the five timestamps, the text and JSON columns), cancel_requested is whether
-- cancel_requested_at is set, and claim_token is shown only when asked for.
begin;
\ir ../helpers.psql
select plan(5);

create temp table src as
select jsonb_populate_record(null::actae.executions, jsonb_build_object(
    'channel_id', 'tap-er', 'key_name', 'k', 'execution_id', gen_random_uuid(),
    'tool_name', 't', 'params', '{"p": 1}', 'dedup_fields', array['p'],
    'fingerprint', 'fp', 'status', 'failed', 'claim_token', gen_random_uuid(),
    'fence', 7, 'attempt', 3, 'lease_seconds', 60,
    'lease_expires_at', '2030-01-05T00:00:00Z', 'result', '{"r": 2}', 'error', 'boom',
    'retryable', false, 'ambiguous', true, 'cancel_requested_at', '2030-01-06T00:00:00Z',
    'cancel_reason', 'why', 'created_at', '2030-01-01T00:00:00Z',
    'claimed_at', '2030-01-02T00:00:00Z', 'heartbeat_at', '2030-01-03T00:00:00Z',
    'finished_at', '2030-01-04T00:00:00Z'
)) as r;
create temp table shown as
select to_jsonb(r) as s, to_jsonb(actae._execution_row(r, 'replayed', true)) as o,
    to_jsonb(actae._execution_row(r, 'replayed', false)) as h
from src;

select is(
    (select string_agg(k, ', ' order by k) from shown, jsonb_object_keys(o) as k
     where s ? k and s -> k is distinct from o -> k),
    null, 'every field holds the column of its name'
);
select is(
    (select count(*) from shown, jsonb_object_keys(o) as k where s ? k), 22::bigint,
    'all 22 fields named after a column are compared'
);
select is((select o ->> 'outcome' from shown), 'replayed', 'outcome is the one given');
select is((select o -> 'cancel_requested' from shown), 'true'::jsonb,
    'cancel_requested is true when cancel_requested_at is set');
select is((select h from shown), (select o || '{"claim_token": null}' from shown),
    'without p_show_token the same row with claim_token null');

select * from finish();
rollback;
