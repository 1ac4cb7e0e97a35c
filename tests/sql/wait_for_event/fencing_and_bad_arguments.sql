-- wait_for_event is fenced (random token AC423, finished run AC409) and checks wait_key and
-- event_type 1-256 bytes and timeout_seconds 0-31536000 (AC400); a cancel-requested run
-- ends as cancelled instead of waiting.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(7);

create temp table c as select * from pg_temp.started_claim('tap-we7', 'tap-q-we7');
select throws_ok($$select actae.wait_for_event('tap-we7', gen_random_uuid(), 'k', 'e', 1)$$,
    'AC423', null, 'a random token is AC423');
select is(pg_temp.error_of($$select actae.wait_for_event('tap-we7', claim_token, '', 'e', 1)
    from c$$) -> 'detail' ->> 'argument', 'wait_key', 'empty wait_key');
select is(pg_temp.error_of($$select actae.wait_for_event('tap-we7', claim_token, 'k',
    repeat('e', 257), 1) from c$$) -> 'detail' ->> 'argument', 'event_type',
    'event_type of 257 bytes');
select is(pg_temp.error_of($$select actae.wait_for_event('tap-we7', claim_token, 'k', 'e',
    31536001) from c$$) -> 'detail' ->> 'argument', 'timeout_seconds', 'timeout over a year');
select actae.cancel_run('tap-we7', 'stop');
select is((select outcome from actae.wait_for_event('tap-we7', (select claim_token from c), 'k',
    'e', 60)), 'cancelled', 'a cancel-requested run ends instead of waiting');
select is((select status from actae.get_run('tap-we7')), 'cancelled', 'the run is over');
select throws_ok($$select actae.wait_for_event('tap-we7', claim_token, 'k', 'e', 60) from c$$,
    'AC409', null, 'then its token gets AC409');

select * from finish();
rollback;
