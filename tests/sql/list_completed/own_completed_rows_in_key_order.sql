-- In a channel that is not a fork, list_completed returns its completed executions only
-- (not claimed, in-progress, failed or cancelled ones, not other channels'), ordered by
-- key_name, without claim tokens; after_key_name and max_rows page through them; an
-- unknown channel has none.
begin;
\ir ../helpers.psql
select plan(7);

select pg_temp.completed('tap-lc', k, 't', to_jsonb(k)) from unnest(array['c', 'a', 'e', 'b']) as k;
select outcome from actae.claim_execution('tap-lc', 'busy', 't', '{}');
create temp table f as select * from actae.claim_execution('tap-lc', 'd-failed', 't', '{}');
select actae.fail_execution(execution_id, 'no', claim_token, false) from f;
select pg_temp.completed('tap-lc-other', 'a0', 't', '1');

select results_eq(
    $$select key_name, result from actae.list_completed('tap-lc')$$,
    $$values ('a'::text, '"a"'::jsonb), ('b', '"b"'), ('c', '"c"'), ('e', '"e"')$$,
    'completed rows only, in key order');
select is((select count(*) from actae.list_completed('tap-lc') where claim_token is not null
    or outcome is not null), 0::bigint, 'no claim token, no outcome');
select results_eq(
    $$select key_name from actae.list_completed('tap-lc', 'b', 2)$$,
    $$values ('c'::text), ('e')$$, 'after_key_name and max_rows page');
select results_eq(
    $$select to_jsonb(l) from actae.list_completed('tap-lc') as l where key_name = 'c'$$,
    $$select to_jsonb(g) from actae.get_execution('tap-lc', 'c') as g$$,
    'each row is what get_execution returns');
select is((select count(*) from actae.list_completed('tap-lc-nobody')), 0::bigint,
    'an unknown channel has no rows');
select throws_ok($$select * from actae.list_completed('tap-lc', null, 0)$$, 'AC400',
    'max_rows must be between 1 and 100000', 'max_rows is bounded');
select throws_ok($$select * from actae.list_completed('tap-lc', '')$$, 'AC400',
    'after_key_name must be 1 to 1024 bytes of text', 'an empty after_key_name is named');

select * from finish();
rollback;
