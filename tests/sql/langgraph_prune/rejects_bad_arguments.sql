-- An unknown strategy or null thread_ids is AC400 and writes nothing; an empty list is a
-- no-op.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(4);

select pg_temp.lg_put('tap-lg-prb', '', 'cp-1');
select pg_temp.lg_put('tap-lg-prb', '', 'cp-2', 'cp-1');
create temp table digest_before as select pg_temp.lg_digest() as d;
select throws_ok($$select actae.langgraph_prune(array['tap-lg-prb'], 'keep_some')$$, 'AC400',
    'strategy must be keep_latest or delete', 'unknown strategy');
select throws_ok($$select actae.langgraph_prune(null)$$, 'AC400', 'thread_ids is required',
    'null thread_ids');
select is(actae.langgraph_prune('{}'), 0, 'an empty list prunes nothing');
select is(pg_temp.lg_digest(), d, 'nothing was written') from digest_before;

select * from finish();
rollback;
