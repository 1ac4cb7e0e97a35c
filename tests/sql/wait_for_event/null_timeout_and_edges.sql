-- wait_for_event requires timeout_seconds (null is AC400 naming it, nothing written) and
-- accepts its upper edge, 31536000 seconds (a year), as it accepts 256-byte keys and types.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql

select plan(3);

create temp table c as select * from pg_temp.started_claim('tap-we-null', 'tap-q-we-null');
create temp table before as select pg_temp.ledger_digest() as d;
select is(pg_temp.error_of($$select actae.wait_for_event('tap-we-null', claim_token, 'k', 'e',
    null) from c$$) -> 'detail' ->> 'argument', 'timeout_seconds', 'null timeout is AC400');
select is(pg_temp.ledger_digest(), (select d from before), 'nothing was written');
select is((select outcome from actae.wait_for_event('tap-we-null', (select claim_token from c),
    repeat('k', 256), repeat('e', 256), 31536000)), 'waiting',
    'a year''s timeout and 256-byte key and type are accepted');

select * from finish();
rollback;
