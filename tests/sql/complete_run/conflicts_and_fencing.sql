-- complete_run with a different result after completion is AC409; a stale token (after a
-- reclaim) is AC423 and leaves the new owner's run untouched; a failed run is AC409; a
-- result over 1 MiB is AC400.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(5);

create temp table c as select * from pg_temp.started_claim('tap-co2', 'tap-q-co2');
select actae.complete_run('tap-co2', (select claim_token from c), '1');
select throws_ok($$select actae.complete_run('tap-co2', claim_token, '2') from c$$, 'AC409',
    null, 'another result is AC409');

create temp table old as select * from pg_temp.started_claim('tap-co2b', 'tap-q-co2');
select pg_temp.make_due('tap-co2b');
select actae.claim_run('tap-q-co2', 'w2');
create temp table before as select pg_temp.run_json('tap-co2b') as j;
select throws_ok($$select actae.complete_run('tap-co2b', claim_token, '1') from old$$, 'AC423',
    null, 'the previous owner cannot complete');
select is(pg_temp.run_json('tap-co2b'), (select j from before), 'the new owner''s run is untouched');

create temp table f as select * from pg_temp.started_claim('tap-co2c', 'tap-q-co2');
select actae.fail_run('tap-co2c', (select claim_token from f), 'boom', false);
select throws_ok($$select actae.complete_run('tap-co2c', claim_token, '1') from f$$, 'AC409',
    null, 'a failed run cannot be completed');
select is(pg_temp.error_of($$select actae.complete_run('tap-co2c', claim_token,
    to_jsonb(repeat('x', 1048577))) from f$$) -> 'detail' ->> 'argument', 'result',
    'a result over 1 MiB is AC400');

select * from finish();
rollback;
