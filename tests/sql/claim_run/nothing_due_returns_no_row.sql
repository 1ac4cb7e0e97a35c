-- With nothing due (an empty queue, a running run with a live lease, a sleeping run whose
-- wake time is ahead, a finished run) claim_run returns zero rows and writes nothing.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(3);

select is((select count(*) from actae.claim_run('tap-q-cr2', 'w')), 0::bigint, 'empty queue');
select pg_temp.started_claim('tap-cr2-live', 'tap-q-cr2');
select pg_temp.started_claim('tap-cr2-done', 'tap-q-cr2');
select actae.complete_run('tap-cr2-done', pg_temp.token_of('tap-cr2-done'), '1');
create temp table before as
select jsonb_agg(to_jsonb(r) order by channel_id) as j from actae.runs as r
where queue = 'tap-q-cr2';
select is((select count(*) from actae.claim_run('tap-q-cr2', 'w')), 0::bigint,
    'a live lease and a finished run are not due');
select is((select jsonb_agg(to_jsonb(r) order by channel_id) from actae.runs as r
    where queue = 'tap-q-cr2'), (select j from before), 'nothing was written');

select * from finish();
rollback;
