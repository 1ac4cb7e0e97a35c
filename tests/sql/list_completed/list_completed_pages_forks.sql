-- list_completed in a fork pages as in a root channel (keys after
-- after_key_name only, inherited ones too; at most max_rows rows), and for a key completed
-- in several ancestors lists the nearest ancestor's row, as a claim replays it.
begin;
\ir ../helpers.psql
select plan(5);

select pg_temp.completed('tap-z2l', 'a', 't', '"root-a"');
select pg_temp.completed('tap-z2l', 'b', 't', '"root-b"');
select pg_temp.completed('tap-z2l', 'k', 'live_t', '"root-k"');
select pg_temp.record_steps('tap-z2l', 1);
select actae.fork_channel('tap-z2l', 1, 'tap-z2l-mid', null, '{"live_t": "live"}');
select pg_temp.completed('tap-z2l-mid', 'c', 't', '"mid-c"');
select pg_temp.completed('tap-z2l-mid', 'k', 'live_t', '"mid-k"');
select pg_temp.record_steps('tap-z2l-mid', 1);
select actae.fork_channel('tap-z2l-mid', 2, 'tap-z2l-leaf', null, '{"live_t": "replay"}');

select results_eq(
    $$select key_name from actae.list_completed('tap-z2l-mid', 'a')$$,
    $$values ('b'::text), ('c'), ('k')$$,
    'a fork lists only keys after after_key_name, inherited ones too');
select results_eq(
    $$select key_name from actae.list_completed('tap-z2l-mid', null, 2)$$,
    $$values ('a'::text), ('b')$$,
    'a fork lists at most max_rows rows');
select results_eq(
    $$select key_name, result from actae.list_completed('tap-z2l-leaf')$$,
    $$values ('a'::text, '"root-a"'::jsonb), ('b', '"root-b"'), ('c', '"mid-c"'),
        ('k', '"mid-k"')$$,
    'a key completed in two ancestors: the nearest one''s row');
select is((select result from actae.claim_execution('tap-z2l-leaf', 'k', 'live_t', '{}')),
    '"mid-k"'::jsonb, 'which is the row a claim replays');
select results_eq(
    $$select key_name from actae.list_completed('tap-z2l-leaf', 'b', 1)$$,
    $$values ('c'::text)$$,
    'pages of a fork of a fork: after b, one row');

select * from finish();
rollback;
