-- start_run refuses only to create a run outside READ COMMITTED: for a channel that already
-- has a run it answers at any level (a replay is replayed, another agent or input is AC409,
-- never 0A000). The run is written directly, since start_run cannot create it here.
begin isolation level repeatable read;
\ir ../helpers.psql

select plan(3);

insert into actae.channels (channel_id, tenant)
values ('tap-sr-rr2', actae._new_channel_tenant('tap-sr-rr2'));
insert into actae.runs (channel_id, agent, queue, input, status, due_at, wake_reason,
    max_attempts, created_at)
values ('tap-sr-rr2', 'a', 'tap-q-sr-rr2', '{"n": 1}', 'queued', clock_timestamp(), 'start', 5,
    clock_timestamp());

select is((select outcome from actae.start_run('tap-sr-rr2', 'a', '{"n": 1}', 'tap-q-sr-rr2')),
    'replayed', 'a replay under REPEATABLE READ is replayed');
select throws_ok($$select actae.start_run('tap-sr-rr2', 'a', '{"n": 2}')$$, 'AC409', null,
    'another input under REPEATABLE READ is AC409, not 0A000');
select throws_ok($$select actae.start_run('tap-sr-rr2-new', 'a', '{}')$$, '0A000', null,
    'creating a run under REPEATABLE READ is still 0A000');

select * from finish();
rollback;
