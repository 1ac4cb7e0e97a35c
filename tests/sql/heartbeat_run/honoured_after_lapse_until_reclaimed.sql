-- A lapsed lease that nobody reclaimed is still the owner's: its heartbeat extends it again
-- (fenced like the execution ledger). Once reclaimed, the old token is AC423.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(3);

create temp table c as select * from pg_temp.started_claim('tap-hr2', 'tap-q-hr2');
select pg_temp.make_due('tap-hr2');
select ok((select lease_expires_at > clock_timestamp()
    from actae.heartbeat_run('tap-hr2', (select claim_token from c))),
    'a lapsed, unreclaimed lease is extended');
select pg_temp.make_due('tap-hr2');
select is((select outcome from actae.claim_run('tap-q-hr2', 'w2')), 'reclaimed',
    'another worker reclaims after a new lapse');
select throws_ok($$select actae.heartbeat_run('tap-hr2', claim_token) from c$$, 'AC423', null,
    'then the old token is AC423');

select * from finish();
rollback;
