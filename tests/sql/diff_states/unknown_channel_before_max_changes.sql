-- diff_states checks in order: channel_a, channel_b (each AC400 naming it), then whether both
-- exist and may be read (AC404), then max_changes: an unknown channel with a bad max_changes
-- is AC404, a known one with max_changes 0 or null AC400 naming max_changes.
begin;
\ir ../helpers.psql
select plan(3);

select pg_temp.record_steps('tap-dso', 1);
select is(pg_temp.error_of($$select actae.diff_states('tap-dso', 'tap-dso-none', 0)$$)
    ->> 'sqlstate', 'AC404', 'an unknown channel before a bad max_changes');
select is(pg_temp.error_of($$select actae.diff_states('tap-dso', 'tap-dso', 0)$$)
    -> 'detail' ->> 'argument', 'max_changes', 'max_changes 0 is AC400 naming it');
select is(pg_temp.error_of($$select actae.diff_states('tap-dso', 'tap-dso', null)$$)
    -> 'detail' ->> 'argument', 'max_changes', 'a null max_changes too');

select * from finish();
rollback;
