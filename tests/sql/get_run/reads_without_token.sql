-- get_run returns the run with no claim token, even while it runs; an unknown run is AC404
-- and a bad channel_id AC400.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(4);

select pg_temp.started_claim('tap-gr1', 'tap-q-gr1');
create temp table g as select * from actae.get_run('tap-gr1');
select is(status, 'running', 'the current status') from g;
select is(claim_token, null, 'no claim token') from g;
select throws_ok($$select actae.get_run('tap-unknown')$$, 'AC404', null, 'unknown run');
select is(pg_temp.error_of($$select actae.get_run('')$$) -> 'detail' ->> 'argument',
    'channel_id', 'empty channel_id');

select * from finish();
rollback;
