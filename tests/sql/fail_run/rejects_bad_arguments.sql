-- error 1-65536 bytes, claim_token and retryable required: AC400 naming the argument; the
-- run is untouched.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(4);

create temp table c as select * from pg_temp.started_claim('tap-fr4', 'tap-q-fr4');
create temp table before as select pg_temp.run_json('tap-fr4') as j;
select is(pg_temp.error_of($$select actae.fail_run('tap-fr4', claim_token, '') from c$$)
    -> 'detail' ->> 'argument', 'error', 'empty error');
select is(pg_temp.error_of($$select actae.fail_run('tap-fr4', claim_token, repeat('e', 65537))
    from c$$) -> 'detail' ->> 'argument', 'error', 'error over 65536 bytes');
select is(pg_temp.error_of($$select actae.fail_run('tap-fr4', claim_token, 'e', null) from c$$)
    -> 'detail' ->> 'argument', 'retryable', 'null retryable');
select is(pg_temp.run_json('tap-fr4'), (select j from before), 'the run is untouched');

select * from finish();
rollback;
