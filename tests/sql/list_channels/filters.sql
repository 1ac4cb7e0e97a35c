-- list_channels filters by metadata containment, parent, created range, tag, and by the
-- status and agent of the channel's run; each row reports the channel's ledger health
-- (executions, in flight, failed, ambiguous) and its annotations.
begin;
\ir ../helpers.psql
\ir ../console_helpers.psql
select plan(9);

select actae.create_channel('tap-lf-a', '{"team": "billing", "env": "prod"}');
select actae.create_channel('tap-lf-b', '{"team": "billing", "env": "dev"}');
select pg_temp.story('tap-lf-a');
select actae.fork_channel('tap-lf-a', 1, 'tap-lf-a-fork');
select actae.annotate_channel('tap-lf-a-fork', 'Retry', array['tap-lf-tag'], 'why', 0);
select actae.start_run('tap-lf-run', 'tap-lf-agent', '{}');
update actae.channels set created_at = '2031-01-01' where channel_id = 'tap-lf-b';

select results_eq(
    $$select channel_id from actae.list_channels(p_metadata => '{"team": "billing"}')
      order by channel_id$$,
    $$values ('tap-lf-a'), ('tap-lf-b')$$, 'metadata containment');
select results_eq(
    $$select channel_id from actae.list_channels(p_metadata => '{"env": "prod"}')$$,
    $$values ('tap-lf-a')$$, 'containment of a narrower object');
select results_eq(
    $$select channel_id, fork_cursor from actae.list_channels(p_parent_channel_id => 'tap-lf-a')$$,
    $$values ('tap-lf-a-fork', 1::bigint)$$, 'forks of a parent');
select results_eq(
    $$select channel_id from actae.list_channels(p_created_after => '2031-01-01',
        p_created_before => '2031-01-02')$$,
    $$values ('tap-lf-b')$$, 'created range (after inclusive, before exclusive)');
select results_eq(
    $$select channel_id, display_name, tags, note, annotation_revision
      from actae.list_channels(p_tag => 'tap-lf-tag')$$,
    $$values ('tap-lf-a-fork', 'Retry', array['tap-lf-tag'], 'why', 1::bigint)$$,
    'tag filter, with the annotations');
select results_eq(
    $$select channel_id, run_status, run_agent from actae.list_channels(p_agent => 'tap-lf-agent')$$,
    $$values ('tap-lf-run', 'queued', 'tap-lf-agent')$$, 'run agent filter');
select results_eq(
    $$select channel_id from actae.list_channels(p_status => 'queued', p_agent => 'tap-lf-agent')$$,
    $$values ('tap-lf-run')$$, 'run status filter');
select is(
    (select count(*) from actae.list_channels(p_status => 'running', p_agent => 'tap-lf-agent')),
    0::bigint, 'a status the run does not have matches nothing');
select results_eq(
    $$select head_cursor, executions, in_flight, failed, ambiguous
      from actae.list_channels(p_metadata => '{"env": "prod"}')$$,
    $$values (3::bigint, 2::bigint, 0::bigint, 1::bigint, 1::bigint)$$,
    'ledger health: two executions, one failed, one ambiguous');

select * from finish();
rollback;
