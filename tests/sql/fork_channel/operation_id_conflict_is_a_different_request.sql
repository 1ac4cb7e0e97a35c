-- An operation_id the caller's own fork took, reused for a different fork (another cursor,
-- new_channel_id or tool_policies: all content), is AC409 as a different request: the
-- message says so and DETAIL names the stored and given kinds and the given content hash
-- (never the stored fork's hash), not "a fork this caller cannot read", which would send
-- the caller looking for another tenant. The same for an operation_id the source's
-- record_event or transition_state took (one namespace per channel), whose stored hash
-- DETAIL does name.
begin;
\ir ../helpers.psql
select plan(10);

select pg_temp.record_steps('tap-focd', 3);
select actae.fork_channel('tap-focd', 2, 'tap-focd-f', 'fork-op', '{"t": "live"}');
select pg_temp.ledger_digest() as before \gset

create temp table refused as
select what, pg_temp.error_of(stmt) as e from (values
    ('cursor', $$select actae.fork_channel('tap-focd', 1, 'tap-focd-f', 'fork-op', '{"t": "live"}')$$),
    ('new id', $$select actae.fork_channel('tap-focd', 2, 'tap-focd-g', 'fork-op', '{"t": "live"}')$$),
    ('policies', $$select actae.fork_channel('tap-focd', 2, 'tap-focd-f', 'fork-op', '{"t": "block"}')$$),
    ('no policies', $$select actae.fork_channel('tap-focd', 2, 'tap-focd-f', 'fork-op')$$)
) as s (what, stmt);

select is((select count(*) from refused where e ->> 'sqlstate' = 'AC409'), 4::bigint,
    'a different cursor, new id, policies or no policies under the operation_id are AC409');
select is((select e ->> 'message' from refused where what = 'policies'),
    'operation_id fork-op in channel tap-focd was used for a different request',
    'other policies: a different request');
select is((select e ->> 'message' from refused where what = 'no policies'),
    'operation_id fork-op in channel tap-focd was used for a different request',
    'policies left out (inherited from the source): a different request too');
select is((select count(*) from refused
        where e ->> 'message' = 'operation_id fork-op in channel tap-focd was used for a '
            'different request'),
    4::bigint, 'every one of them says a different request');
select is(
    (select (e -> 'detail') - 'given_content_sha256'::text from refused where what = 'policies'),
    '{"channel_id": "tap-focd", "operation_id": "fork-op", "stored_kind": "fork_channel",
      "given_kind": "fork_channel", "stored_content_sha256": null}'::jsonb,
    'DETAIL names both kinds and never the stored fork''s hash');
select is(
    (select e -> 'detail' ->> 'given_content_sha256' from refused where what = 'policies'),
    pg_temp.sha256_hex(
        jsonb_build_array('tap-focd', 2, 'tap-focd-f', '{"t": "block"}'::jsonb)::text),
    'and the given request''s hash: source, cursor, new id and policies');
select is(pg_temp.ledger_digest(), :'before', 'the refused forks wrote nothing');

select actae.record_event('tap-focd', 'e', '{}', 'rec-op');
select actae.transition_state('tap-focd', 't', '{}', '{}', 0, null, 'tr-op');
select is(
    pg_temp.error_of($$select actae.fork_channel('tap-focd', 1, null, 'rec-op')$$),
    jsonb_build_object('sqlstate', 'AC409',
        'message', 'operation_id rec-op in channel tap-focd was used for a different request',
        'detail', jsonb_build_object('channel_id', 'tap-focd', 'operation_id', 'rec-op',
            'stored_kind', 'record_event', 'given_kind', 'fork_channel',
            'stored_content_sha256', pg_temp.sha256_hex(
                jsonb_build_array('e', '{}'::jsonb)::text),
            'given_content_sha256', pg_temp.sha256_hex(
                jsonb_build_array('tap-focd', 1, null, null)::text))),
    'an operation_id of record_event reused by a fork: a different request, both kinds');
select is(
    pg_temp.error_of($$select actae.fork_channel('tap-focd', 1, null, 'tr-op')$$) ->> 'message',
    'operation_id tr-op in channel tap-focd was used for a different request',
    'one of transition_state too');
select is(
    pg_temp.error_of($$select actae.record_event('tap-focd', 'e', '{}', 'fork-op')$$) -> 'detail'
        ->> 'stored_kind',
    'fork_channel', 'and the fork''s operation_id reused by record_event names the fork kind');

select * from finish();
rollback;
