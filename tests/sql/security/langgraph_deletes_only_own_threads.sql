-- langgraph_delete_thread, langgraph_prune and langgraph_delete_for_runs act only on the
-- caller's tenant's threads: another tenant's thread of the same id, or its run's
-- checkpoints, are left whole (each call counts only what it forgot), and its own go.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(8);

select pg_temp.two_tenants('t_lg_ten_a', 't_lg_ten_b', 't_lg_a', 't_lg_b');
grant execute on all functions in schema pg_temp to public;
create temp table counted (what text, n integer);
grant insert on counted to public;

-- Tenant b owns two threads; tenant a owns one with its own checkpoints.
set local session authorization t_lg_b;
select pg_temp.lg_put('tap-lg-ten-b', '', 'cp-1', null, '{"run_id": "tap-ten-run"}');
select pg_temp.lg_put('tap-lg-ten-b', '', 'cp-2', 'cp-1', '{"run_id": "tap-ten-run"}');
select pg_temp.lg_put('tap-lg-ten-b2', '', 'cp-1', null, '{"run_id": "tap-ten-run"}');
set local session authorization t_lg_a;
select pg_temp.lg_put('tap-lg-ten-a', '', 'cp-1', null, '{"run_id": "tap-ten-run"}');
select pg_temp.lg_put('tap-lg-ten-a', '', 'cp-2', 'cp-1', '{"run_id": "tap-ten-run"}');

-- Tenant a aims at b's threads and at a run id both use.
insert into counted values
    ('delete b', actae.langgraph_delete_thread('tap-lg-ten-b')),
    ('prune b', actae.langgraph_prune(array['tap-lg-ten-b', 'tap-lg-ten-b2'])),
    ('prune a', actae.langgraph_prune(array['tap-lg-ten-a'])),
    ('runs', actae.langgraph_delete_for_runs(array['tap-ten-run']));
reset session authorization;

select is((select n from counted where what = 'delete b'), 0, 'delete_thread: b''s thread is not a''s');
select is((select n from counted where what = 'prune b'), 0, 'prune: nothing of b''s is forgotten');
select is((select n from counted where what = 'prune a'), 1, 'prune: a''s own older checkpoint goes');
select is((select n from counted where what = 'runs'), 1,
    'delete_for_runs: only a''s checkpoint of the run goes');
select is((select count(*) from actae.langgraph_list('tap-lg-ten-b')), 2::bigint,
    'b''s thread keeps both checkpoints');
select is((select count(*) from actae.langgraph_list('tap-lg-ten-b2')), 1::bigint,
    'b''s second thread keeps its checkpoint');
select is((select count(*) from actae.langgraph_list('tap-lg-ten-a')), 0::bigint,
    'a''s thread has no checkpoint left');

set local session authorization t_lg_b;
insert into counted values ('b deletes', actae.langgraph_delete_thread('tap-lg-ten-b'));
reset session authorization;
select is((select n from counted where what = 'b deletes'), 1, 'b deletes its own thread');

select * from finish();
rollback;
