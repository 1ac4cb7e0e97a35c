-- A random token is AC423 (DETAIL: fence, status); a run that is over is AC409 for its own
-- token; an unknown run is AC404; a parked run's old token is AC423; bad arguments are AC400.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(7);

create temp table c as select * from pg_temp.started_claim('tap-hr3', 'tap-q-hr3');
create temp table e as
select pg_temp.error_of($$select actae.heartbeat_run('tap-hr3', gen_random_uuid())$$) as e;
select is(e ->> 'sqlstate', 'AC423', 'a random token is AC423') from e;
select is(e -> 'detail' ->> 'fence', '1', 'DETAIL has the fence') from e;
select is(pg_temp.error_of($$select actae.heartbeat_run('tap-none', gen_random_uuid())$$)
    ->> 'sqlstate', 'AC404', 'an unknown run is AC404');
select is(pg_temp.error_of($$select actae.heartbeat_run('tap-hr3', null)$$)
    -> 'detail' ->> 'argument', 'claim_token', 'a null token is AC400');
select is(pg_temp.error_of($$select actae.heartbeat_run('tap-hr3', claim_token, 0) from c$$)
    -> 'detail' ->> 'argument', 'lease_seconds', 'lease_seconds 0 is AC400');
select actae.sleep_run('tap-hr3', (select claim_token from c), 'nap', 3600);
select throws_ok($$select actae.heartbeat_run('tap-hr3', claim_token) from c$$, 'AC423', null,
    'a sleeping run''s old token is dead');
select pg_temp.started_claim('tap-hr3b', 'tap-q-hr3');
select actae.complete_run('tap-hr3b', pg_temp.token_of('tap-hr3b'), '1');
select throws_ok($$select actae.heartbeat_run('tap-hr3b', pg_temp.token_of('tap-hr3b'))$$,
    'AC409', null, 'a completed run is AC409 for its own token');

select * from finish();
rollback;
