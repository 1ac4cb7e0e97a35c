-- fork_channel records its operation_id in the source channel's namespace, shared with
-- record_event and transition_state (SPEC 3a) and with the sleeps and waits of the source's
-- run: an operation_id beginning with 'actae.' is AC400 naming operation_id, nothing
-- written, so a fork cannot take the id of a run's sleep.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(5);

create temp table c as select * from pg_temp.started_claim('tap-fres', 'tap-q-fres');
create temp table digest_before as select pg_temp.ledger_digest() as d;

select is(pg_temp.error_of($$select actae.fork_channel('tap-fres', 0, null,
    'actae.sleep:foo')$$) ->> 'sqlstate', 'AC400', 'actae.sleep:<key> is AC400');
select is(pg_temp.error_of($$select actae.fork_channel('tap-fres', 0, null,
    'actae.sleep:foo')$$) -> 'detail' ->> 'argument', 'operation_id', 'naming operation_id');
select is(pg_temp.ledger_digest(), d, 'nothing was written') from digest_before;
select is(pg_temp.error_of($$select actae.sleep_run('tap-fres', claim_token, 'foo', 3600)
    from c$$), null, 'sleep_run with that key is not refused');
select is((select status from actae.get_run('tap-fres')), 'sleeping', 'it parked the run');

select * from finish();
rollback;
