-- A fail_run that ended a cancel-requested run as cancelled, repeated with the same token
-- (a worker retrying its call), is a no-op success: the run stays cancelled, nothing is
-- written. So is the lost owner's fail_run after claim_run ended its abandoned run as
-- cancelled.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql

select plan(5);

create temp table c as select * from pg_temp.started_claim('tap-fr-rc', 'tap-q-fr-rc');
select actae.cancel_run('tap-fr-rc', 'withdrawn');
select actae.fail_run('tap-fr-rc', (select claim_token from c), 'stopped');
create temp table before as select pg_temp.run_json('tap-fr-rc') as j;
create temp table again as
select * from actae.fail_run('tap-fr-rc', (select claim_token from c), 'stopped');
select is(status, 'cancelled', 'the repeated fail_run answers the cancelled run') from again;
select is(error, 'cancelled: withdrawn', 'with its error') from again;
select is(pg_temp.run_json('tap-fr-rc'), (select j from before), 'and writes nothing');

create temp table l as select * from pg_temp.started_claim('tap-fr-rc2', 'tap-q-fr-rc2');
select actae.cancel_run('tap-fr-rc2', 'halt');
select pg_temp.make_due('tap-fr-rc2');
select actae.claim_run('tap-q-fr-rc2', 'w2');
select is((select status from actae.runs where channel_id = 'tap-fr-rc2'), 'cancelled',
    'claim_run ended the abandoned run as cancelled');
select is((select status from actae.fail_run('tap-fr-rc2', (select claim_token from l),
    'lost')), 'cancelled', 'the lost owner''s fail_run then answers it, no error');

select * from finish();
rollback;
