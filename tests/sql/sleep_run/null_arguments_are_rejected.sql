-- sleep_run requires claim_token and seconds: null is AC400 naming the argument (a null
-- token is no lease error), and nothing is written.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql

select plan(3);

create temp table c as select * from pg_temp.started_claim('tap-sl-null', 'tap-q-sl-null');
create temp table before as select pg_temp.ledger_digest() as d,
    pg_temp.run_json('tap-sl-null') as j;
select is(pg_temp.error_of($$select actae.sleep_run('tap-sl-null', null, 'k', 1)$$)
    -> 'detail' ->> 'argument', 'claim_token', 'a null claim_token is AC400');
select is(pg_temp.error_of($$select actae.sleep_run('tap-sl-null', claim_token, 'k', null)
    from c$$) -> 'detail' ->> 'argument', 'seconds', 'null seconds is AC400');
select ok((select d = pg_temp.ledger_digest() and j = pg_temp.run_json('tap-sl-null')
    from before), 'nothing was written');

select * from finish();
rollback;
