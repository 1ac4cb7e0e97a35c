-- A fork replayed because its new_channel_id already is that fork still records the
-- operation_id it was given: the id then answers as the fork it names, so the same request
-- always gets the same answer (a replay) and another request under that id is AC409
-- (one operation_id namespace per channel, SPEC section 3a). An event under a fork's
-- operation_id is AC409 whose DETAIL does not carry the fork's stored content hash (it
-- covers the fork's new channel id, which a tenant sharing the source must not confirm).
-- A fork recorded under an operation_id that has since been purged, its id taken again by
-- an ordinary channel: the same request is AC409 (as without the operation_id), not a
-- replay with an empty receipt.
begin;
\ir ../helpers.psql
select plan(9);

select pg_temp.record_steps('tap-frop', 3);
select actae.fork_channel('tap-frop', 1, 'tap-frop-x');
create temp table again as
select * from actae.fork_channel('tap-frop', 1, 'tap-frop-x', 'op2');

select is(outcome, 'replayed', 'the fork by its new id replays') from again;
select is((select target_channel_id from actae.operations
           where channel_id = 'tap-frop' and operation_id = 'op2'), 'tap-frop-x',
    'and records its operation_id, naming that fork');
select throws_ok($$select actae.fork_channel('tap-frop', 2, 'tap-frop-y', 'op2')$$,
    'AC409', null, 'another request under that operation_id is AC409');
select is((select count(*) from actae.channels where channel_id = 'tap-frop-y'), 0::bigint,
    'and forks nothing');
select is((select outcome from actae.fork_channel('tap-frop', 1, 'tap-frop-x', 'op2')),
    'replayed', 'the first request again is still a replay');
create temp table clash as
select pg_temp.error_of($$select actae.record_event('tap-frop', 'e', '{}', 'op2')$$) as e;
select is(e ->> 'sqlstate', 'AC409', 'an event under the fork''s operation_id is AC409')
from clash;
select ok(e -> 'detail' ? 'stored_content_sha256'
    and e -> 'detail' ->> 'stored_content_sha256' is null
    and e -> 'detail' ->> 'stored_kind' = 'fork_channel',
    'naming the stored kind, without the fork''s content hash') from clash;

select actae.fork_channel('tap-frop', 2, 'tap-frop-gone', 'op-gone');
select actae.close_channel('tap-frop-gone');
select actae.purge('0 seconds');
select is((select count(*) from actae.channels where channel_id = 'tap-frop-gone'), 0::bigint,
    'the fork recorded under op-gone is purged');
select actae.record_event('tap-frop-gone', 'unrelated', '{}');
select throws_ok($$select actae.fork_channel('tap-frop', 2, 'tap-frop-gone', 'op-gone')$$,
    'AC409', 'operation_id op-gone in channel tap-frop was already used by a fork this caller '
    'cannot read', 'the same request, its fork purged and its id taken again, is AC409');

select * from finish();
rollback;
