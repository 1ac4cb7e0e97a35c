-- The set path: a batch without dedup_fields and without a repeated key, in a channel that
-- is not a fork, claims its new keys with one INSERT; only the elements whose key exists
-- already go through claim_execution. Outcomes, stored rows and element order are those of
-- the single calls. Where the set path does not apply (a fork), every element takes
-- claim_execution. track_functions counts the calls, so the test sees which path ran.
begin;
\ir ../helpers.psql
select plan(12);
set local track_functions = 'all';

select pg_temp.completed('tap-sp', 'done', 't', '"stored"');
select actae.claim_execution('tap-sp', 'busy', 't', '{}');
create temp table calls_before as
select coalesce((select calls from pg_stat_xact_user_functions
    where schemaname = 'actae' and funcname = 'claim_execution'), 0) as calls;

create temp table batch as
select row_number() over () as n, b.*
from actae.claim_executions(
    'tap-sp',
    array['new-1', 'done', 'new-2', 'busy'],
    array['t', 't', 'u', 't'],
    array['{"a": 1}', '{}', '{"b": [1, 2]}', '{}']::jsonb[],
    null, 45
) as b;

select results_eq(
    $$select key_name, outcome from batch order by n$$,
    $$values ('new-1'::text, 'claimed'::text), ('done', 'replayed'), ('new-2', 'claimed'),
        ('busy', 'in_progress')$$,
    'one row per element, in order, each with the single call''s outcome'
);
select is(
    (select calls from pg_stat_xact_user_functions
     where schemaname = 'actae' and funcname = 'claim_execution')
    - (select calls from calls_before),
    2::bigint, 'only the two existing keys went through claim_execution');
select is((select result from batch where n = 2), '"stored"'::jsonb,
    'the replay carries the stored result');
select results_eq(
    $$select e.tool_name, e.fingerprint, e.status::text, e.fence, e.attempt, e.lease_seconds,
           e.lease_expires_at - e.claimed_at, e.claim_token, e.tenant, e.written_by
       from actae.executions as e join batch as b using (execution_id)
       where b.outcome = 'claimed' order by b.n$$,
    $$select b.tool_name, actae._fingerprint(e.params, null), 'claimed'::text, 1::bigint, 1,
           45, interval '45 seconds', b.claim_token, c.tenant, s.written_by
       from batch as b join actae.executions as e using (execution_id)
           join actae.channels as c on c.channel_id = e.channel_id
           join actae.executions as s on s.channel_id = 'tap-sp' and s.key_name = 'busy'
       where b.outcome = 'claimed' order by b.n$$,
    'the stored rows are what claim_execution stores (fingerprint, fence, lease, token, '
    || 'tenant, writer)'
);
select is(
    (select count(*) from batch where outcome = 'claimed'
        and substr(execution_id::text, 15, 1) = '7'),
    2::bigint, 'new execution ids are time-ordered (version 7)');
select is((select params from actae.executions where channel_id = 'tap-sp'
    and key_name = 'new-2'), '{"b": [1, 2]}'::jsonb, 'each element stores its own params');

-- A new channel: created by the batch, owned by the caller's tenant (as the channel the
-- single claims above created).
select is(
    (select array_agg(outcome order by key_name)
     from actae.claim_executions('tap-sp-new', array['x', 'y'], array['t', 't'],
         array['{}', '{}']::jsonb[])),
    array['claimed', 'claimed'], 'a batch in a new channel claims every key');
select is((select tenant from actae.channels where channel_id = 'tap-sp-new'),
    (select tenant from actae.channels where channel_id = 'tap-sp'), 'the channel it created belongs to the caller''s tenant');

-- A repeated key: the second element sees the first's live lease, as single calls would.
select is(
    (select array_agg(outcome order by n) from (
        select row_number() over () as n, b.outcome
        from actae.claim_executions('tap-sp', array['rep', 'rep'], array['t', 't'],
            array['{}', '{}']::jsonb[]) as b) as r),
    array['claimed', 'in_progress'], 'a key repeated in the batch is in_progress the second time');

-- A fork: an inherited completion replays the ancestor's row; a new key is claimed.
select pg_temp.record_steps('tap-sp', 1);
create temp table fork as
select f.channel_id from actae.fork_channel('tap-sp', 1) as f;
create temp table forked as
select row_number() over () as n, b.*
from actae.claim_executions((select channel_id from fork), array['done', 'fresh'],
    array['t', 't'], array['{}', '{}']::jsonb[]) as b;
select results_eq(
    $$select outcome, result from forked order by n$$,
    $$values ('replayed'::text, '"stored"'::jsonb), ('claimed', null)$$,
    'in a fork, the inherited key replays and the new key is claimed');
select is((select execution_id from forked where n = 1),
    (select execution_id from actae.executions where channel_id = 'tap-sp'
        and key_name = 'done'), 'the replay is the ancestor''s row');

-- An element the set path's checks refuse is raised by claim_execution, naming the element.
select throws_ok(
    $$select * from actae.claim_executions('tap-sp', array['ok', 'bad'], array['t', 't'],
        array['{}', '[1]']::jsonb[])$$,
    'AC400', 'element 2: params must be a JSON object',
    'params that are not an object: AC400 naming the element');

select * from finish();
rollback;
