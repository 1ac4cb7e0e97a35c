-- The receipt names the source, the requested cursor, the inherited state version and
-- prefix_sha256 = the hash chain value at the cursor ('' at cursor 0), which anyone can
-- verify by folding list_events of the fork.
begin;
\ir ../helpers.psql
select plan(10);

select actae.record_event('tap-rc', 'a', '{"n": 1}');
select actae.transition_state('tap-rc', 'b', '{"n": 2}', '{"s": 1}', 0);
select actae.record_event('tap-rc', 'c', '{"n": 3}');
create temp table mid as select * from actae.fork_channel('tap-rc', 2, 'tap-rc-mid');
create temp table head as select * from actae.fork_channel('tap-rc', 3, 'tap-rc-head');
create temp table zero as select * from actae.fork_channel('tap-rc', 0, 'tap-rc-zero');
create temp table unnamed as select * from actae.fork_channel('tap-rc', 1);

select results_eq($$select channel_id, source_channel_id, fork_cursor, version, outcome
      from mid$$,
    $$values ('tap-rc-mid'::text, 'tap-rc'::text, 2::bigint, 1::bigint, 'forked'::text)$$,
    'receipt: new channel, source, cursor, inherited version, outcome forked');
select is(prefix_sha256, (select chain_sha256 from actae.list_events('tap-rc') where cursor = 2),
    'prefix_sha256 is the source''s chain value at the cursor') from mid;
select is(prefix_sha256, pg_temp.fold_chain('tap-rc-mid', 2),
    'and equals the fold over the fork''s own list_events') from mid;
select is(prefix_sha256, (select head_chain_sha256 from actae.get_channel('tap-rc')),
    'a fork at the head carries the head chain value') from head;
select is(prefix_sha256, pg_temp.fold_chain('tap-rc-head', 3), 'verifiable by folding')
from head;
select is(prefix_sha256, '', 'a fork at cursor 0 has the empty prefix hash') from zero;
select results_eq($$select version, cursor, state from actae.get_state('tap-rc-zero')$$,
    $$values (0::bigint, 0::bigint, 'null'::jsonb)$$, 'and version 0, state null');
select is_empty($$select * from actae.list_events('tap-rc-zero')$$, 'and no events');
select ok(channel_id like 'fork-%' and channel_id <> 'tap-rc',
    'without new_channel_id a fresh id is generated') from unnamed;
select is(
    (select parent_channel_id from actae.get_channel(u.channel_id)), 'tap-rc',
    'and that channel exists as a fork of the source') from unnamed as u;

select * from finish();
rollback;
