-- diff_states compares the two latest states leaf by leaf: added, removed and changed
-- paths (objects by key, arrays by index, a type change as one change), in path order;
-- max_changes bounds the list and truncated says more were left out.
begin;
\ir ../helpers.psql
select plan(5);

select actae.transition_state('tap-ds-a', 't', '{}',
    '{"plan": {"x": 1, "gone": true}, "list": [1, 2, 3], "same": {"k": [1]}, "kind": {"a": 1}}', 0);
select actae.transition_state('tap-ds-b', 't', '{}',
    '{"plan": {"x": 2, "new": null}, "list": [1, 5], "same": {"k": [1]}, "kind": "flat"}', 0);

select is((select changes from actae.diff_states('tap-ds-a', 'tap-ds-b')),
    '[{"path": ["kind"], "op": "changed", "a": {"a": 1}, "b": "flat"},
      {"path": ["list", "1"], "op": "changed", "a": 2, "b": 5},
      {"path": ["list", "2"], "op": "removed", "a": 3, "b": null},
      {"path": ["plan", "gone"], "op": "removed", "a": true, "b": null},
      {"path": ["plan", "new"], "op": "added", "a": null, "b": null},
      {"path": ["plan", "x"], "op": "changed", "a": 1, "b": 2}]'::jsonb,
    'every differing leaf, in path order; JSON null is a value, a missing key is not');
-- An object or array added or removed whole is one change carrying it (a missing side is
-- SQL null inside the walk, which must not drop the row).
select actae.transition_state('tap-ds-c', 't', '{}',
    '{"step": 2, "notes": [], "refund": {"amount_cents": 4200}, "xs": [1]}', 0);
select actae.transition_state('tap-ds-d', 't', '{}',
    '{"step": 2, "cart": {"sku-1": 2}, "xs": [1, {"k": 1}, [2]]}', 0);
select is((select changes from actae.diff_states('tap-ds-c', 'tap-ds-d')),
    '[{"path": ["cart"], "op": "added", "a": null, "b": {"sku-1": 2}},
      {"path": ["notes"], "op": "removed", "a": [], "b": null},
      {"path": ["refund"], "op": "removed", "a": {"amount_cents": 4200}, "b": null},
      {"path": ["xs", "1"], "op": "added", "a": null, "b": {"k": 1}},
      {"path": ["xs", "2"], "op": "added", "a": null, "b": [2]}]'::jsonb,
    'objects and arrays added or removed whole are one change each');
select results_eq(
    $$select version_a, version_b, truncated from actae.diff_states('tap-ds-a', 'tap-ds-b')$$,
    $$values (1::bigint, 1::bigint, false)$$, 'the versions compared, not truncated');
select results_eq(
    $$select jsonb_array_length(changes), truncated
      from actae.diff_states('tap-ds-a', 'tap-ds-b', 2)$$,
    $$values (2, true)$$, 'max_changes bounds the list and says so');
select is(pg_temp.error_of($$select actae.diff_states('tap-ds-a', 'tap-nowhere')$$)
    ->> 'sqlstate', 'AC404', 'an unknown channel is AC404');

select * from finish();
rollback;
