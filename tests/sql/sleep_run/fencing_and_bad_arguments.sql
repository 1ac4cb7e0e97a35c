-- sleep_run is fenced (a random or parked token AC423, a finished run AC409, no run AC404)
-- and checks sleep_key 1-256 bytes, seconds 0-31536000 (AC400); nothing is written.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(8);

create temp table c as select * from pg_temp.started_claim('tap-sl6', 'tap-q-sl6');
create temp table before as select pg_temp.ledger_digest() as d, pg_temp.run_json('tap-sl6') as j;
select throws_ok($$select actae.sleep_run('tap-sl6', gen_random_uuid(), 'k', 1)$$, 'AC423',
    null, 'a random token is AC423');
select throws_ok($$select actae.sleep_run('tap-none', gen_random_uuid(), 'k', 1)$$, 'AC404',
    null, 'an unknown channel is AC404');
select is(pg_temp.error_of($$select actae.sleep_run('tap-sl6', claim_token, repeat('k', 257), 1)
    from c$$) -> 'detail' ->> 'argument', 'sleep_key', 'sleep_key of 257 bytes');
select is(pg_temp.error_of($$select actae.sleep_run('tap-sl6', claim_token, 'k', -1) from c$$)
    -> 'detail' ->> 'argument', 'seconds', 'seconds -1');
select is(pg_temp.error_of($$select actae.sleep_run('tap-sl6', claim_token, 'k', 31536001)
    from c$$) -> 'detail' ->> 'argument', 'seconds', 'seconds over a year');
select is((select d from before), pg_temp.ledger_digest(), 'nothing was written');
select lives_ok($$select actae.sleep_run('tap-sl6', claim_token, repeat('k', 256), 31536000)
    from c$$, 'the edges are accepted');
select throws_ok($$select actae.sleep_run('tap-sl6', claim_token, 'k', 1) from c$$, 'AC423',
    null, 'the parked run''s old token is dead');

select * from finish();
rollback;
