-- complete_run records the result (SQL NULL as JSON null), status completed, due_at null,
-- finished_at set; the same token and an equal result again is a no-op success.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(6);

create temp table c as select * from pg_temp.started_claim('tap-co1', 'tap-q-co1');
create temp table d as select * from actae.complete_run('tap-co1', (select claim_token from c),
    '{"refunded": true}');
select is(status, 'completed', 'status completed') from d;
select is(result, '{"refunded": true}'::jsonb, 'the result is stored') from d;
select ok(due_at is null and finished_at is not null, 'no longer due, finished') from d;
create temp table before as select pg_temp.run_json('tap-co1') as j;
select is((select status from actae.complete_run('tap-co1', (select claim_token from c),
    '{"refunded":true}')), 'completed', 'the same result again succeeds');
select is(pg_temp.run_json('tap-co1'), (select j from before), 'and writes nothing');
select pg_temp.started_claim('tap-co1b', 'tap-q-co1');
select is((select result from actae.complete_run('tap-co1b', pg_temp.token_of('tap-co1b'), null)),
    'null'::jsonb, 'a SQL NULL result is JSON null');

select * from finish();
rollback;
