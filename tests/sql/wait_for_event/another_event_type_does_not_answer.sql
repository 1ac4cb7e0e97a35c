-- Only an event of the awaited type answers a wait: a re-executed wait after an event of
-- another type (and before the deadline) parks again instead of receiving it.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql

select plan(2);

create temp table c as select * from pg_temp.started_claim('tap-we-ot', 'tap-q-we-ot');
select actae.wait_for_event('tap-we-ot', (select claim_token from c), 'k', 'approval', 600);
select actae.record_event('tap-we-ot', 'comment', '{"text": "soon"}');
select pg_temp.make_due('tap-we-ot');
create temp table c2 as select * from actae.claim_run('tap-q-we-ot', 'w');
select is((select outcome from actae.wait_for_event('tap-we-ot', (select claim_token from c2),
    'k', 'approval', 600)), 'waiting', 'a comment does not answer a wait for approval');
select is((select status from actae.runs where channel_id = 'tap-we-ot'), 'waiting',
    'the run parks again');

select * from finish();
rollback;
