-- The same wait_key for another event type is AC409 (DETAIL names the operation); nothing
-- is written.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(3);

create temp table c as select * from pg_temp.started_claim('tap-we6', 'tap-q-we6');
select actae.wait_for_event('tap-we6', (select claim_token from c), 'k', 'approval', 0);
create temp table before as select pg_temp.ledger_digest() as d;
create temp table e as select pg_temp.error_of($$select actae.wait_for_event('tap-we6',
    claim_token, 'k', 'rejection', 0) from c$$) as e;
select is(e ->> 'sqlstate', 'AC409', 'AC409') from e;
select is(e -> 'detail' ->> 'operation_id', 'actae.wait:k', 'DETAIL names the operation') from e;
select is(pg_temp.ledger_digest(), (select d from before), 'nothing was written');

select * from finish();
rollback;
