-- annotate_channel replays (outcome replayed, nothing written) only a repeat of the same
-- call: a call one revision behind with the same name and tags but another note (or no
-- note) is stale, AC412, and the stored note stays.
begin;
\ir ../helpers.psql
select plan(4);

select actae.record_event('tap-arn', 'e', '{}');
select actae.annotate_channel('tap-arn', 'Name', array['a'], 'first note', 0);
select is((select outcome from actae.annotate_channel('tap-arn', 'Name', array['a'],
    'first note', 0)), 'replayed', 'the same call replays');
select is(pg_temp.error_of($$select actae.annotate_channel('tap-arn', 'Name', array['a'],
    'other note', 0)$$) ->> 'sqlstate', 'AC412', 'another note is stale: AC412');
select is(pg_temp.error_of($$select actae.annotate_channel('tap-arn', 'Name', array['a'],
    null, 0)$$) ->> 'sqlstate', 'AC412', 'no note is stale too');
select is((select row(note, revision)::text from actae.annotations where channel_id = 'tap-arn'),
    '("first note",1)', 'the stored note and revision are unchanged');

select * from finish();
rollback;
