-- Without tool_policies (or with "replay" named explicitly) an inherited completion
-- replays and a new key runs normally.
begin;
\ir ../helpers.psql
select plan(4);

select actae.record_event('tap-def', 'start', '{}');
select pg_temp.completed('tap-def', 'k', 'web.search', '"r"');
select actae.fork_channel('tap-def', 1, 'tap-def-none');
select actae.fork_channel('tap-def', 1, 'tap-def-replay', null, '{"web.search": "replay"}');

select is(pg_temp.probe_claim('tap-def-none', 'k', 'web.search'), 'replayed',
    'no policies: replayed');
select is(pg_temp.probe_claim('tap-def-replay', 'k', 'web.search'), 'replayed',
    'explicit replay: replayed');
select is(pg_temp.probe_claim('tap-def-none', 'new', 'web.search'), 'claimed',
    'a new key is claimed');
select is((select tool_policies from actae.get_channel('tap-def-none')), null,
    'a fork without policies stores none');

select * from finish();
rollback;
