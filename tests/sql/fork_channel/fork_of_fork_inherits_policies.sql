-- A fork of a fork inherits its parent's tool_policies unless it passes its own (which
-- then replace them as a whole).
begin;
\ir ../helpers.psql
select plan(6);

select actae.record_event('tap-pp', 'start', '{}');
select pg_temp.completed('tap-pp', 's', 'web.search', '"r"');
select actae.fork_channel('tap-pp', 1, 'tap-pp-child', null,
    '{"web.search": "live", "stripe.charge": "block"}');
create temp table inherited as
select * from actae.fork_channel('tap-pp-child', 1, 'tap-pp-grandchild');
create temp table own as
select * from actae.fork_channel('tap-pp-child', 1, 'tap-pp-own', null, '{"web.search": "replay"}');

select is(tool_policies, '{"web.search": "live", "stripe.charge": "block"}'::jsonb,
    'the grandchild''s receipt shows the inherited policies') from inherited;
select is(pg_temp.probe_claim('tap-pp-grandchild', 's', 'web.search'), 'claimed',
    'inherited live: the grandchild re-executes the search');
select is(pg_temp.probe_claim('tap-pp-grandchild', 'c', 'stripe.charge'), 'AC403',
    'inherited block: the grandchild may not charge');
select is(tool_policies, '{"web.search": "replay"}'::jsonb,
    'a grandchild passing its own policies gets exactly those') from own;
select is(pg_temp.probe_claim('tap-pp-own', 's', 'web.search'), 'replayed',
    'its own replay policy replays the search');
select is(pg_temp.probe_claim('tap-pp-own', 'c', 'stripe.charge'), 'claimed',
    'and the parent''s block no longer applies');

select * from finish();
rollback;
