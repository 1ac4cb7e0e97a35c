-- In a fork, an operation_id the fork itself recorded (not one it inherits) replays there
-- like in any channel: record_event and transition_state return the original cursor (and
-- version) with outcome replayed and write nothing; other content under it is AC409; and
-- a fork_channel of the fork under it names the fork's own operation. Its own operations
-- are found before its ancestors are looked at.
begin;
\ir ../helpers.psql
select plan(7);

select pg_temp.record_steps('tap-orf', 2);
select actae.fork_channel('tap-orf', 2, 'tap-orf-f');
select actae.record_event('tap-orf-f', 'e', '{"n": 3}', 'op-own');
select actae.transition_state('tap-orf-f', 't', '{"n": 4}', '{"s": 1}', 0, null, 'op-own-t');
select actae.record_event('tap-orf-f', 'e', '{"n": 5}');
select pg_temp.ledger_digest() as before \gset

select results_eq($$select cursor, outcome from actae.record_event('tap-orf-f', 'e',
        '{"n": 3}', 'op-own')$$,
    $$values (3::bigint, 'replayed'::text)$$, 'the fork''s own record_event replays');
select results_eq($$select cursor, version, outcome from actae.transition_state('tap-orf-f',
        't', '{"n": 4}', '{"s": 1}', 0, null, 'op-own-t')$$,
    $$values (4::bigint, 1::bigint, 'replayed'::text)$$,
    'the fork''s own transition replays, stale guard and all');
select is(pg_temp.ledger_digest(), :'before', 'the replays wrote nothing');
select is(
    pg_temp.error_of($$select actae.record_event('tap-orf-f', 'e', '{"n": 99}', 'op-own')$$)
        ->> 'sqlstate',
    'AC409', 'other content under the fork''s own operation_id is AC409');
select is(
    pg_temp.error_of($$select actae.transition_state('tap-orf-f', 't', '{}', '{}', 1, null,
        'op-own')$$) -> 'detail' ->> 'stored_kind',
    'record_event', 'another kind under it is AC409 naming the stored kind');
select is(
    pg_temp.error_of($$select actae.fork_channel('tap-orf-f', 3, null, 'op-own')$$)
        -> 'detail' ->> 'stored_kind',
    'record_event', 'so is a fork of the fork under it');
select is((select count(*) from actae.operations where channel_id = 'tap-orf-f'), 2::bigint,
    'the fork holds its two operations, once each');

select * from finish();
rollback;
