-- actae._chain(previous, cursor, event_type, payload) is the hex sha256 of
-- previous || ':' || cursor || ':' || event_type || ':' || payload::text (UTF-8 bytes),
-- recomputed here; appends store exactly that link, the first chaining from ''; it is
-- declared IMMUTABLE, so an UPDATE of the channel row may compute it (Citus).
begin;
\ir ../helpers.psql
select plan(5);

select is(actae._chain('ab12', 7, 'tool.call', '{"b": 1, "a": "é"}'),
    pg_temp.sha256_hex('ab12:7:tool.call:{"a": "é", "b": 1}'),
    'the link hashes previous:cursor:event_type:payload');
select is(actae._chain('', 1, 'note', '"x"'), pg_temp.sha256_hex(':1:note:"x"'),
    'the first link chains from the empty string');
select isnt(actae._chain('a', 1, 'note', '1'), actae._chain('a', 2, 'note', '1'),
    'the cursor is part of the link');

select actae.record_event('tap-chainfn', 'note', '"x"');
select actae.transition_state('tap-chainfn', 'step', '{"n": 2}', '{"s": 2}', 0);
select is(
    (select chain_sha256 from actae.events where channel_id = 'tap-chainfn' and cursor = 2),
    actae._chain(actae._chain('', 1, 'note', '"x"'), 2, 'step', '{"n": 2}'),
    'appends store the link of the previous one');
select is((select provolatile from pg_proc where oid = 'actae._chain'::regproc), 'i'::"char",
    'declared immutable');

select * from finish();
rollback;
