-- Each element gets the outcome the single claim would get at that point of the
-- transaction: a new key is claimed, a completed key replays, a live lease is in_progress,
-- a non-retryably failed key is failed, and a key repeated in the batch sees the first
-- element's row. One row per element, in element order.
begin;
\ir ../helpers.psql
select plan(8);

create temp table done as select * from actae.claim_execution('tap-ce', 'done', 't', '{"a": 1}');
select actae.complete_execution(execution_id, claim_token, '"stored"') from done;
create temp table busy as select * from actae.claim_execution('tap-ce', 'busy', 't', '{}');
create temp table fatal as select * from actae.claim_execution('tap-ce', 'fatal', 't', '{}');
select actae.fail_execution(execution_id, 'declined', claim_token, false) from fatal;

create temp table batch as
select row_number() over () as n, b.*
from actae.claim_executions(
    'tap-ce',
    array['new', 'done', 'busy', 'fatal', 'new'],
    array['t', 't', 't', 't', 't'],
    array['{}', '{"a": 1}', '{}', '{}', '{}']::jsonb[],
    null, 30
) as b;

select results_eq(
    $$select key_name, outcome from batch order by n$$,
    $$values ('new'::text, 'claimed'::text), ('done', 'replayed'), ('busy', 'in_progress'),
        ('fatal', 'failed'), ('new', 'in_progress')$$,
    'one row per element, in order, each with the single call''s outcome'
);
select is((select result from batch where n = 2), '"stored"'::jsonb,
    'the replay carries the stored result');
select isnt((select claim_token from batch where n = 1), null,
    'the new claim shows its token to the caller');
select is((select claim_token from batch where n = 3), null,
    'an in_progress row shows no token');
select is((select claim_token from batch where n = 5), null,
    'the repeated key sees the first element''s live lease, without its token');
select is(
    (select claim_token from actae.executions where channel_id = 'tap-ce' and key_name = 'new'),
    (select claim_token from batch where n = 1),
    'the stored row holds the token returned for the first element'
);
select cmp_ok(
    (select lease_expires_at - claimed_at from actae.executions
     where channel_id = 'tap-ce' and key_name = 'new'),
    '=', interval '30 seconds', 'the shared lease_seconds applies to every element');
select is(
    (select count(*) from actae.claim_executions('tap-ce', '{}', '{}', '{}')),
    0::bigint, 'an empty batch returns no rows');

select * from finish();
rollback;
