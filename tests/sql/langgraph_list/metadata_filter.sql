-- filter keeps the checkpoints whose metadata contains it (every key must match); a filter
-- that is not a JSON object is AC400.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(4);

select pg_temp.lg_put('tap-lg-flt', '', 'cp-1', null, '{"source": "input", "step": 1}');
select pg_temp.lg_put('tap-lg-flt', '', 'cp-2', null, '{"source": "loop", "step": 1}');
select pg_temp.lg_put('tap-lg-flt', '', 'cp-3', null, '{"source": "input", "step": 2}');
select is((select array_agg(checkpoint_id)
           from actae.langgraph_list('tap-lg-flt', null, '{"source": "input"}')),
    array['cp-3', 'cp-1'], 'one key');
select is((select array_agg(checkpoint_id)
           from actae.langgraph_list('tap-lg-flt', null, '{"source": "input", "step": 2}')),
    array['cp-3'], 'every key must match');
select is((select count(*) from actae.langgraph_list('tap-lg-flt', null, '{"step": 9}')),
    0::bigint, 'no match, no rows');
select throws_ok($$select * from actae.langgraph_list('tap-lg-flt', null, '[1]')$$,
    'AC400', 'filter must be a JSON object', 'a filter that is not an object');

select * from finish();
rollback;
