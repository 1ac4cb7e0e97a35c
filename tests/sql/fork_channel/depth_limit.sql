-- Fork depth is capped (issue 14, F9: a chain of forks copied its whole lineage into every
-- fork, so channels grew quadratically). A chain of _limit('fork_depth') forks is built,
-- each with an event and a completed execution of its own; a fork one level deeper is AC400
-- naming source_channel_id and writes nothing; a fork of the deepest channel at a cursor it
-- inherits (a shorter lineage) is still allowed; and the deepest fork replays exactly what
-- it inherits: the root's completion, the previous level's, and none made after the cut.
begin;
\ir ../helpers.psql
select plan(12);

select is(actae._limit('fork_depth'), 100::bigint, 'forks are at most 100 levels deep');

-- tap-d0 is the root; tap-d<i> is a fork of tap-d<i-1> at its head (cursor i), then gets
-- event i + 1 and completes key k<i>. The root completes k-late after tap-d1 forked it.
do $$
begin
    perform actae.record_event('tap-d0', 'step', '{"level": 0}');
    perform pg_temp.completed('tap-d0', 'k0', 't', '"r0"');
    for i in 1 .. actae._limit('fork_depth') loop
        perform actae.fork_channel('tap-d' || (i - 1), i, 'tap-d' || i);
        perform actae.record_event('tap-d' || i, 'step', jsonb_build_object('level', i));
        perform pg_temp.completed('tap-d' || i, 'k' || i, 't', to_jsonb('r' || i));
    end loop;
    perform pg_temp.completed('tap-d0', 'k-late', 't', '"late"');
end;
$$;

select is(cardinality((actae.get_channel('tap-d100')).lineage), 100,
    'the deepest fork lists its 100 ancestors');

create temp table before_refused as select pg_temp.ledger_digest() as digest;
create temp table refused as
select pg_temp.error_of($$select actae.fork_channel('tap-d100', 101, 'tap-d101')$$) as e;
select is((select e ->> 'sqlstate' from refused), 'AC400',
    'a fork 101 levels deep is AC400');
select is((select e -> 'detail' ->> 'argument' from refused), 'source_channel_id',
    'the error names source_channel_id');
select is((select (e -> 'detail' ->> 'max_depth')::bigint from refused), 100::bigint,
    'DETAIL carries the limit');
select ok((select e ->> 'message' from refused) ~ 'tap-d100.*101 levels deep.*limit of 100',
    'the message names the channel, the depth and the limit');
select is(pg_temp.ledger_digest(), (select digest from before_refused),
    'the refused fork wrote nothing');

-- Forking the deepest channel inside its inherited prefix trims the lineage: allowed.
select is((actae.fork_channel('tap-d100', 50, 'tap-d100-at-50')).fork_cursor, 50::bigint,
    'a fork of the deepest channel at an inherited cursor is allowed');
select is(cardinality((actae.get_channel('tap-d100-at-50')).lineage), 51,
    'its lineage is trimmed to the 51 channels that cursor reaches (tap-d0..tap-d50)');

-- Replay at full depth stays exact.
select is(pg_temp.probe_claim('tap-d100', 'k0'), 'replayed',
    'the deepest fork replays the root''s completion before the cut');
select is(pg_temp.probe_claim('tap-d100', 'k99'), 'replayed',
    'and its parent''s');
select is(pg_temp.probe_claim('tap-d100', 'k-late'), 'claimed',
    'but not a completion in the root after the first fork');

select * from finish();
rollback;
