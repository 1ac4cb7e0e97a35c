-- annotate_channel writes only when expected_revision is the current one (0 before the
-- first), bumping it; a stale revision is AC412 with the current one in DETAIL and writes
-- nothing; the same call repeated is replayed; creation metadata never changes.
begin;
\ir ../helpers.psql
select plan(8);

select actae.create_channel('tap-an', '{"owner": "ops"}');
select results_eq(
    $$select display_name, tags, note, revision, outcome
      from actae.annotate_channel('tap-an', 'Refund run', array['b', 'a', 'b'], 'first', 0)$$,
    $$values ('Refund run', array['a', 'b'], 'first', 1::bigint, 'updated')$$,
    'first annotation: revision 1, tags distinct and sorted');
select results_eq(
    $$select revision, outcome
      from actae.annotate_channel('tap-an', 'Refund run', array['a', 'b'], 'first', 0)$$,
    $$values (1::bigint, 'replayed')$$, 'the same call again is replayed, nothing bumped');
create temp table before as select a.* from actae.annotations as a where channel_id = 'tap-an';
select is(pg_temp.error_of(
    $$select actae.annotate_channel('tap-an', 'Other', null, null, 0)$$) -> 'detail'
    -> 'current_revision', '1'::jsonb, 'a stale revision is AC412 with the current one');
select is(pg_temp.error_of(
    $$select actae.annotate_channel('tap-an', 'Other', null, null, 0)$$) ->> 'sqlstate',
    'AC412', 'AC412');
select is((select to_jsonb(a) from actae.annotations as a where channel_id = 'tap-an'),
    (select to_jsonb(b) from before as b), 'the stale call wrote nothing');
select results_eq(
    $$select display_name, tags, note, revision, outcome
      from actae.annotate_channel('tap-an', null, null, 'cleared name', 1)$$,
    $$values (null::text, '{}'::text[], 'cleared name', 2::bigint, 'updated')$$,
    'the current revision updates; null clears a field');
select is((select metadata from actae.get_channel('tap-an')), '{"owner": "ops"}'::jsonb,
    'creation metadata is unchanged');
select is(pg_temp.error_of(
    $$select actae.annotate_channel('tap-an', 'x', null, null, 5)$$) ->> 'sqlstate',
    'AC412', 'a revision from the future is AC412 too');

select * from finish();
rollback;
