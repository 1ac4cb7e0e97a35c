-- transition_state of the awaited event type wakes the waiting run like record_event; an
-- event of another type does not.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(3);

create temp table c as select * from pg_temp.started_claim('tap-we2', 'tap-q-we2');
select actae.wait_for_event('tap-we2', (select claim_token from c), 'k', 'approval', 3600);
select actae.record_event('tap-we2', 'comment', '{"text": "looks fine"}');
select ok((select due_at > clock_timestamp() and wake_reason = 'timeout'
    from actae.runs where channel_id = 'tap-we2'), 'another event type does not wake it');
select is((select wake_event_type from actae.channels where channel_id = 'tap-we2'), 'approval',
    'and the flag stays');
select actae.transition_state('tap-we2', 'approval', '{"approved": true}', '{"ok": 1}',
    (select state_version from actae.get_channel('tap-we2')));
select ok((select due_at <= clock_timestamp() and wake_reason = 'event'
    from actae.runs where channel_id = 'tap-we2'), 'transition_state of the type wakes it');

select * from finish();
rollback;
