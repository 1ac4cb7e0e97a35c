-- actae._append moves a channel's head in one UPDATE where its guards hold and writes the
-- append's rows; where they do not (a stale expected_version or expected_cursor, an
-- unknown channel) it returns a row of nulls and writes nothing; null guards always
-- append. The event, snapshot and operation carry the new cursor and version, the
-- channel's clock moves with them.
begin;
\ir ../helpers.psql
select plan(12);

select actae.transition_state('tap-app', 'step', '{"n": 1}', '{"s": 1}', 0);
select pg_temp.ledger_digest() as before \gset

select ok((actae._append('tap-app', 'step', '{}', null, 'transition_state', null, true,
    '{}', 0, null)).cursor is null, 'a stale expected_version: a row of nulls');
select ok((actae._append('tap-app', 'step', '{}', null, 'transition_state', null, true,
    '{}', 1, 0)).cursor is null, 'a stale expected_cursor: a row of nulls');
select ok((actae._append('tap-app-none', 'step', '{}', null, 'record_event', null, false,
    null, null, null)).version is null, 'an unknown channel: a row of nulls');
select is(pg_temp.ledger_digest(), :'before', 'none of them wrote anything');
select is((select count(*) from actae.channels where channel_id = 'tap-app-none'), 0::bigint,
    'the unknown channel was not created');

create temp table done as
select * from actae._append('tap-app', 'step', '{"n": 2}', 'op-2', 'transition_state',
    'c2', true, '{"s": 2}', 1, 1);
select results_eq($$select cursor, version from done$$, $$values (2::bigint, 2::bigint)$$,
    'guards that hold: cursor 2, version 2');
select results_eq(
    $$select head_cursor, state_version, clock from actae.channels
      where channel_id = 'tap-app'$$,
    $$values (2::bigint, 2::bigint, 2::bigint)$$, 'the channel''s head, version and clock moved');
select results_eq(
    $$select e.payload, e.operation_id, e.clock, s.state, s.cursor
      from actae.events as e join actae.snapshots as s
          on s.channel_id = e.channel_id and s.version = 2
      where e.channel_id = 'tap-app' and e.cursor = 2$$,
    $$values ('{"n": 2}'::jsonb, 'op-2'::text, 2::bigint, '{"s": 2}'::jsonb, 2::bigint)$$,
    'the event and the snapshot carry them');
select results_eq(
    $$select kind::text, content_sha256, cursor, version from actae.operations
      where channel_id = 'tap-app' and operation_id = 'op-2'$$,
    $$values ('transition_state'::text, 'c2'::text, 2::bigint, 2::bigint)$$,
    'and so does the operation');
select is((select recorded_at from done),
    (select recorded_at from actae.events where channel_id = 'tap-app' and cursor = 2),
    'recorded_at is the event''s');

select results_eq(
    $$select cursor, version from actae._append('tap-app', 'note', '1', null, 'record_event',
        null, false, null, null, null)$$,
    $$values (3::bigint, 2::bigint)$$, 'null guards append: cursor 3, version unchanged');
select is((select count(*) from actae.snapshots where channel_id = 'tap-app'), 2::bigint,
    'without state no snapshot is written');

select * from finish();
rollback;
