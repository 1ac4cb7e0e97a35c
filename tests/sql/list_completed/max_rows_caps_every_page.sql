-- list_completed returns at most max_rows rows, the first ones in key order, in a channel
-- that is not a fork and in a fork alike (from the first key and after after_key_name).
begin;
\ir ../helpers.psql
select plan(4);

select pg_temp.completed('tap-lcm', k, 't', to_jsonb(k)) from unnest(array['a', 'b', 'c', 'd']) as k;
select pg_temp.record_steps('tap-lcm', 1);
select actae.fork_channel('tap-lcm', 1, 'tap-lcm-fork');

select results_eq(
    $$select key_name from actae.list_completed('tap-lcm', null, 2)$$,
    $$values ('a'::text), ('b')$$, 'not a fork: the first max_rows rows');
select results_eq(
    $$select key_name from actae.list_completed('tap-lcm', 'a', 1)$$,
    $$values ('b'::text)$$, 'not a fork: after after_key_name, max_rows rows');
select results_eq(
    $$select key_name from actae.list_completed('tap-lcm-fork', null, 2)$$,
    $$values ('a'::text), ('b')$$, 'a fork: the first max_rows rows');
select results_eq(
    $$select key_name from actae.list_completed('tap-lcm-fork', 'a', 1)$$,
    $$values ('b'::text)$$, 'a fork: after after_key_name, max_rows rows');

select * from finish();
rollback;
