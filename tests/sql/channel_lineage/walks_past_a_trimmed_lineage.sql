-- channel_lineage walks parent_channel_id for up to _limit('fork_depth') + 1 generations:
-- a fork of the deepest allowed fork (100 levels) at a cursor it inherits has a trimmed
-- lineage but 101 generations of parents, and all 101 are listed, root first, the same rows
-- as the view actae.channel_lineage.
begin;
\ir ../helpers.psql
select plan(4);

-- tap-ld0 is the root; tap-ld<i> is a fork of tap-ld<i-1> at its head (cursor i), then gets
-- event i + 1.
do $$
begin
    perform actae.record_event('tap-ld0', 'step', '{"level": 0}');
    for i in 1 .. actae._limit('fork_depth') loop
        perform actae.fork_channel('tap-ld' || (i - 1), i, 'tap-ld' || i);
        perform actae.record_event('tap-ld' || i, 'step', jsonb_build_object('level', i));
    end loop;
end;
$$;
select actae.fork_channel('tap-ld100', 1, 'tap-ld-last');

select is((select count(*) from actae.channel_lineage('tap-ld-last')), 101::bigint,
    'a fork under the deepest fork lists 101 generations of parents');
select results_eq(
    $$select ancestor_channel_id, inherited_cursor from actae.channel_lineage('tap-ld-last')
      where generation = 101$$,
    $$values ('tap-ld0'::text, 1::bigint)$$,
    'the root, generation 101, first; the channel sees its event 1');
select results_eq(
    $$select ancestor_channel_id, generation from actae.channel_lineage('tap-ld-last')
      order by generation limit 1$$,
    $$values ('tap-ld100'::text, 1)$$, 'its parent is generation 1');
select set_eq(
    $$select ancestor_channel_id, generation, inherited_cursor
      from actae.channel_lineage('tap-ld-last')$$,
    $$select ancestor_channel_id, generation, inherited_cursor from actae.channel_lineage as v
      where v.channel_id = 'tap-ld-last'$$,
    'the same rows as the view');

select * from finish();
rollback;
