-- fork_channel is idempotent: the same operation_id (in the source's namespace) with the
-- same source, cursor, new id and policies replays the receipt, even with new_channel_id
-- null (the generated id is returned again); different content is AC409.
begin;
\ir ../helpers.psql
select plan(8);

select pg_temp.record_steps('tap-fid', 3);
create temp table first as
select * from actae.fork_channel('tap-fid', 2, null, 'fork-op', '{"t": "live"}');
select actae.record_event('tap-fid', 'later', '{}');
create temp table digest_before as select pg_temp.ledger_digest() as d;
create temp table again as
select * from actae.fork_channel('tap-fid', 2, null, 'fork-op', '{"t": "live"}');

select is(outcome, 'replayed', 'the same operation replays') from again;
select is(pg_temp.ledger_digest(), d, 'the replay wrote nothing') from digest_before;
select is(a.channel_id, f.channel_id, 'returning the same fork') from again as a, first as f;
select is(a.prefix_sha256, f.prefix_sha256, 'with the same receipt') from again as a, first as f;
select is((select count(*) from actae.channels where parent_channel_id = 'tap-fid'), 1::bigint,
    'no second fork was created');
select throws_ok($$select actae.fork_channel('tap-fid', 1, null, 'fork-op', '{"t": "live"}')$$,
    'AC409', null, 'a different cursor under the same operation_id is AC409');
select throws_ok($$select actae.fork_channel('tap-fid', 2, null, 'fork-op', '{"t": "block"}')$$,
    'AC409', null, 'different policies under the same operation_id are AC409');
select throws_ok($$select actae.fork_channel('tap-fid', 2, 'named', 'fork-op', '{"t": "live"}')$$,
    'AC409', null, 'a different new_channel_id under the same operation_id is AC409');

select * from finish();
rollback;
