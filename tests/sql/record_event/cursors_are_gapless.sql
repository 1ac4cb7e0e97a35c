-- Events are numbered 1, 2, 3, … per channel with no gaps (a failed call in between
-- does not burn a cursor); each append returns outcome recorded and its recorded_at.
begin;
\ir ../helpers.psql
select plan(6);

create temp table appended (cursor bigint, outcome text, recorded_at timestamptz);
insert into appended select * from actae.record_event('tap-ev', 'user.message', '{"text": "hi"}');
insert into appended select * from actae.record_event('tap-ev', 'tool.call', '{"tool": "search"}');
select throws_ok($$select actae.record_event('tap-ev', '', '{}')$$, 'AC400', null,
    'a failed append in between');
insert into appended select * from actae.record_event('tap-ev', 'tool.result', '[1, 2]');
insert into appended select * from actae.record_event('tap-other', 'x', '{}');

select results_eq($$select cursor, outcome from appended$$,
    $$values (1::bigint, 'recorded'::text), (2, 'recorded'), (3, 'recorded'), (1, 'recorded')$$,
    'cursors 1, 2, 3 in one channel; another channel starts at 1');
select ok((select bool_and(recorded_at is not null) from appended), 'recorded_at is returned');
select results_eq(
    $$select cursor, event_type, payload from actae.events where channel_id = 'tap-ev'
      order by cursor$$,
    $$values (1::bigint, 'user.message'::text, '{"text": "hi"}'::jsonb),
        (2, 'tool.call', '{"tool": "search"}'), (3, 'tool.result', '[1, 2]')$$,
    'the events are stored in order');
select is((select head_cursor from actae.get_channel('tap-ev')), 3::bigint, 'the head is 3');
select is((select payload from actae.events where channel_id = 'tap-other'), '{}'::jsonb,
    'the other channel holds its own event');

select * from finish();
rollback;
