-- cancel_execution's repeat is a no-op only with the very same reason (compared exactly,
-- case included): a reason differing in case only is another reason, AC409, and the stored
-- reason stays.
begin;
\ir ../helpers.psql
select plan(3);

create temp table c as select * from actae.claim_execution('tap-crx', 'k', 't', '{}');
select actae.cancel_execution(execution_id, 'Stop') from c;
select is(pg_temp.error_of(format('select actae.cancel_execution(%L, %L)',
    (select execution_id from c), 'Stop')), null, 'the same reason is a no-op');
select is(pg_temp.error_of(format('select actae.cancel_execution(%L, %L)',
    (select execution_id from c), 'stop')) ->> 'sqlstate', 'AC409',
    'a reason differing in case is AC409');
select is((select cancel_reason from actae.executions where channel_id = 'tap-crx'), 'Stop',
    'the stored reason stays');

select * from finish();
rollback;
