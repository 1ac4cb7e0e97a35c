-- timeline writes nothing and never shows a claim token (not in any column of any row).
begin;
\ir ../helpers.psql
\ir ../console_helpers.psql
select plan(2);

select pg_temp.story('tap-tlr');
create temp table held as select * from actae.claim_execution('tap-tlr', 'held', 't', '{}');
create temp table digest as select pg_temp.ledger_digest() as d;
create temp table rows as select * from actae.timeline('tap-tlr');

select is(pg_temp.ledger_digest(), (select d from digest), 'timeline wrote nothing');
select is(
    (select count(*) from rows as r, actae.executions as e
     where e.channel_id = 'tap-tlr' and strpos(to_jsonb(r)::text, e.claim_token::text) > 0),
    0::bigint, 'no claim token appears in any timeline row');

select * from finish();
rollback;
