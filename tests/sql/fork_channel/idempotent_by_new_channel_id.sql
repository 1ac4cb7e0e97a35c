-- Re-forking to an existing new_channel_id with the same source, cursor and policies
-- replays the receipt; any other fork under that id — or an existing non-fork channel of
-- that name — is AC409.
begin;
\ir ../helpers.psql
select plan(7);

select pg_temp.record_steps('tap-fnid', 3);
create temp table first as select * from actae.fork_channel('tap-fnid', 2, 'tap-fnid-f');
create temp table again as select * from actae.fork_channel('tap-fnid', 2, 'tap-fnid-f');

create temp table digest_before as select pg_temp.ledger_digest() as d;
select is(outcome, 'replayed', 'the same fork replays') from again;
select is(a.prefix_sha256, f.prefix_sha256, 'with the same receipt') from again as a, first as f;
select throws_ok($$select actae.fork_channel('tap-fnid', 3, 'tap-fnid-f')$$,
    'AC409', null, 'another cursor to the same new_channel_id is AC409');
select throws_ok($$select actae.fork_channel('tap-fnid', 2, 'tap-fnid-f', null, '{"t": "live"}')$$,
    'AC409', null, 'other policies to the same new_channel_id are AC409');
select is(pg_temp.ledger_digest(), d, 'the refused forks wrote nothing') from digest_before;
select actae.record_event('tap-plain', 'e', '{}');
select throws_ok($$select actae.fork_channel('tap-fnid', 2, 'tap-plain')$$,
    'AC409', null, 'an existing ordinary channel cannot become a fork');
select throws_ok($$select actae.fork_channel('tap-fnid', 2, 'tap-fnid')$$,
    'AC409', null, 'nor can the source itself');

select * from finish();
rollback;
