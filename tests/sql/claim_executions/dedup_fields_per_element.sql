-- Each element's dedup_fields entry (a JSON array, or null) is that element's
-- dedup_fields: the stored fingerprint and field list are what the single claim stores.
begin;
\ir ../helpers.psql
select plan(3);

select * from actae.claim_executions('tap-cd', array['a', 'b'], array['t', 't'],
    array['{"x": 1, "y": 2}', '{"x": 1, "y": 2}']::jsonb[],
    array['["y", "x"]', null]::jsonb[]);

select results_eq(
    $$select key_name, dedup_fields, fingerprint from actae.executions
      where channel_id = 'tap-cd' order by key_name$$,
    $$values ('a'::text, '{x,y}'::text[], pg_temp.sha256_hex('{"x": 1, "y": 2}')),
        ('b', null, pg_temp.sha256_hex('{"x": 1, "y": 2}'))$$,
    'fields are normalised per element; a null entry fingerprints all of params'
);
select is(
    (select outcome from actae.claim_execution('tap-cd', 'a', 't', '{"x": 1, "y": 2}',
        array['x', 'y'])),
    'in_progress', 'a single claim with the same fields sees the same operation');
select throws_ok($$select * from actae.claim_executions('tap-cd', array['a'], array['t'],
        array['{"x": 1, "y": 2}']::jsonb[], array['["x"]']::jsonb[])$$,
    'AC409', null, 'different fields for the same key are a conflict, as for one claim');

select * from finish();
rollback;
