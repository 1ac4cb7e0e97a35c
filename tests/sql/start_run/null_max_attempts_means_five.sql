-- start_run with a null max_attempts stores 5, the default (SPEC 7), as a call without
-- the argument does.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql

select plan(2);

select is((select max_attempts from actae.start_run('tap-sr-nma', 'a', '1', 'tap-q-sr-nma',
    null, null)), 5, 'a null max_attempts is 5');
select is((select max_attempts from actae.runs where channel_id = 'tap-sr-nma'), 5,
    'and 5 is stored');

select * from finish();
rollback;
