-- One operation_id namespace per channel is shared by record_event, transition_state and
-- fork_channel: an id used by one kind is AC409 for another kind, whatever the content.
begin;
\ir ../helpers.psql
select plan(6);

select actae.record_event('tap-ns', 'e', '{}', 'op-event');
select actae.transition_state('tap-ns', 'e', '{}', '{}', 0, null, 'op-transition');
select actae.fork_channel('tap-ns', 1, 'tap-ns-fork', 'op-fork');
create temp table digest_before as select pg_temp.ledger_digest() as d;

select throws_ok($$select actae.transition_state('tap-ns', 'e', '{}', '{}', 1, null, 'op-event')$$,
    'AC409', null, 'transition_state with record_event''s operation_id is AC409');
select throws_ok($$select actae.record_event('tap-ns', 'e', '{}', 'op-transition')$$,
    'AC409', null, 'record_event with transition_state''s operation_id is AC409');
select throws_ok($$select actae.fork_channel('tap-ns', 1, 'tap-ns-fork2', 'op-event')$$,
    'AC409', null, 'fork_channel with record_event''s operation_id is AC409');
select throws_ok($$select actae.record_event('tap-ns', 'e', '{}', 'op-fork')$$,
    'AC409', null, 'record_event with fork_channel''s operation_id is AC409');
select is(
    pg_temp.error_of($$select actae.record_event('tap-ns', 'e', '{}', 'op-transition')$$)
        -> 'detail' ->> 'stored_kind',
    'transition_state', 'DETAIL names the kind that owns the operation_id');
select is(pg_temp.ledger_digest(), d, 'nothing was written') from digest_before;

select * from finish();
rollback;
