-- tool_policies holds at most _limit('tool_policies') entries: one more is AC400 and no
-- fork is made; exactly the limit is taken.
begin;
\ir ../helpers.psql
select plan(3);

select actae.record_event('tap-tpl', 'e', '{}');
select throws_ok(format($$select actae.fork_channel('tap-tpl', 1, 'tap-tpl-over', null, %L)$$,
    (select jsonb_object_agg('t' || i, 'replay')
    from generate_series(1, actae._limit('tool_policies') + 1) as i)),
    'AC400', null, 'one entry over the limit is AC400');
select is((select count(*) from actae.channels where channel_id = 'tap-tpl-over'), 0::bigint,
    'and no fork is made');
select is((select outcome from actae.fork_channel('tap-tpl', 1, 'tap-tpl-at', null,
    (select jsonb_object_agg('t' || i, 'replay')
    from generate_series(1, actae._limit('tool_policies')) as i)))::text, 'forked',
    'exactly the limit is taken');

select * from finish();
rollback;
