-- diff_states lists array indexes in numeric order (2 before 10, also inside nested
-- arrays), object keys in text order beside them, and max_changes keeps the first ones in
-- that order.
begin;
\ir ../helpers.psql
select plan(3);

select actae.transition_state('tap-dsn-a', 't', '{}',
    '{"arr": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], "m": [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]],
      "a.b": 1, "a": {"b": 2}}', 0);
select actae.transition_state('tap-dsn-b', 't', '{}',
    '{"arr": [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110], "m": [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2]],
      "a.b": 3, "a": {"b": 4}}', 0);

select is(
    (select jsonb_agg(c -> 'path')
     from actae.diff_states('tap-dsn-a', 'tap-dsn-b') as d,
         jsonb_array_elements(d.changes) as c),
    '[["a", "b"], ["a.b"], ["arr", "1"], ["arr", "2"], ["arr", "3"], ["arr", "4"],
      ["arr", "5"], ["arr", "6"], ["arr", "7"], ["arr", "8"], ["arr", "9"], ["arr", "10"],
      ["arr", "11"], ["m", "0", "10"], ["m", "0", "11"]]'::jsonb,
    'indexes in numeric order, keys in text order');
select is(
    (select jsonb_agg(c -> 'path')
     from actae.diff_states('tap-dsn-a', 'tap-dsn-b', 4) as d,
         jsonb_array_elements(d.changes) as c),
    '[["a", "b"], ["a.b"], ["arr", "1"], ["arr", "2"]]'::jsonb,
    'max_changes keeps the first changes in that order');
select is((select truncated from actae.diff_states('tap-dsn-a', 'tap-dsn-b', 4)), true,
    'and says more were left out');

select * from finish();
rollback;
