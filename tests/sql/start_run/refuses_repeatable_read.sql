-- start_run creating a run runs under READ COMMITTED only (0A000 otherwise), as every
-- function that takes ownership does.
begin isolation level repeatable read;
\ir ../helpers.psql
select plan(1);
select throws_ok($$select actae.start_run('tap-sr-rr', 'a', '{}')$$, '0A000', null,
    'start_run creating a run under REPEATABLE READ is 0A000');
select * from finish();
rollback;
