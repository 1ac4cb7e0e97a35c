-- Operation ids beginning with 'actae.' are Actae's own (sleep_run records actae.sleep:<key>,
-- wait_for_event actae.wait:<key>): record_event refuses them with AC400 naming
-- operation_id and writes nothing, so no caller can take the id of a run's sleep or wait
-- (which would make every later sleep_run / wait_for_event with that key AC409). Ids that
-- only resemble the prefix are the caller's.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(11);

create temp table c as select * from pg_temp.started_claim('tap-evres', 'tap-q-evres');
create temp table digest_before as select pg_temp.ledger_digest() as d;

select is(pg_temp.error_of($$select actae.record_event('tap-evres', 't', '{}',
    'actae.sleep:foo')$$) ->> 'sqlstate', 'AC400', 'actae.sleep:<key> is AC400');
select is(pg_temp.error_of($$select actae.record_event('tap-evres', 't', '{}',
    'actae.sleep:foo')$$) -> 'detail' ->> 'argument', 'operation_id', 'naming operation_id');
select is(pg_temp.error_of($$select actae.record_event('tap-evres', 't', '{}',
    'actae.wait:foo')$$) -> 'detail' ->> 'argument', 'operation_id', 'actae.wait:<key> too');
select is(pg_temp.error_of($$select actae.record_event('tap-evres', 't', '{}',
    'actae.anything')$$) -> 'detail' ->> 'argument', 'operation_id',
    'and any other id beginning with actae.');
select is(pg_temp.error_of($$select actae.record_event('tap-evres-new', 't', '{}',
    'actae.sleep:foo')$$) -> 'detail' ->> 'argument', 'operation_id',
    'also on a channel the call would create');
select is(pg_temp.ledger_digest(), d, 'none of these calls wrote anything') from digest_before;

select is(pg_temp.error_of($$select actae.sleep_run('tap-evres', claim_token, 'foo', 3600)
    from c$$), null, 'sleep_run with that key is not refused');
select is((select status from actae.get_run('tap-evres')), 'sleeping', 'it parked the run');
select lives_ok($$select actae.record_event('tap-evres', 't', '{}', 'actae')$$,
    'actae without the dot is a caller''s id');
select lives_ok($$select actae.record_event('tap-evres', 't', '{}', 'my.actae.sleep:foo')$$,
    'the prefix only counts at the start');
select lives_ok($$select actae.record_event('tap-evres', 't', '{}', 'Actae.sleep:foo')$$,
    'the prefix is case-sensitive, as operation ids are');

select * from finish();
rollback;
