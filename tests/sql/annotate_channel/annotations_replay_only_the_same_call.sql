-- annotate_channel replays only the very call that made the current
-- revision (same display name, tags and note, expected_revision one behind); other tags,
-- or an expected_revision further behind, are AC412 and write nothing.
begin;
\ir ../helpers.psql
select plan(5);

select actae.create_channel('tap-z2n');
select actae.annotate_channel('tap-z2n', 'first', array['a'], 'n', 0);
select actae.annotate_channel('tap-z2n', 'second', array['b', 'c'], 'n', 1);

select is((select outcome from actae.annotate_channel('tap-z2n', 'second', array['c', 'b'],
    'n', 1)), 'replayed', 'the same call again (tags in any order) is replayed');
select is(pg_temp.error_of($$select actae.annotate_channel('tap-z2n', 'second', array['b'],
    'n', 1)$$) ->> 'sqlstate', 'AC412', 'other tags with the old revision are AC412');
select is(pg_temp.error_of($$select actae.annotate_channel('tap-z2n', 'second',
    array['b', 'c'], 'n', 0)$$) ->> 'sqlstate', 'AC412',
    'the same content two revisions behind is AC412, not a replay');
select is(pg_temp.error_of($$select actae.annotate_channel('tap-z2n', 'second',
    array['b', 'c'], 'n', 0)$$) -> 'detail' ->> 'current_revision', '2',
    'DETAIL has the current revision');
select is((select row(revision, tags)::text from actae.annotations
    where channel_id = 'tap-z2n'), '(2,"{b,c}")', 'nothing was written');

select * from finish();
rollback;
