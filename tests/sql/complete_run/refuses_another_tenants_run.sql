-- heartbeat_run, complete_run and fail_run refuse another tenant's run even with its
-- current claim_token (a leaked or guessed token is no key across tenants): AC404 with the
-- message of an unknown run, nothing written; the owner's tenant still completes it. A run
-- whose channel row is missing (start_run never leaves one; a bulk load can) is judged by
-- its token alone, as before.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(7);

select pg_temp.two_tenants('t_rten_1', 't_rten_2', 't_ra1', 't_ra2');
create temp table seen (what text, value jsonb);
grant insert on seen to public;

set local session authorization t_ra1;
select actae.start_run('tap-rten', 'agent', '{}', 'tap-q-rten');
select actae.claim_run('tap-q-rten', 'w1');
reset session authorization;
select pg_temp.token_of('tap-rten') as token \gset
select pg_temp.ledger_digest() as before \gset

set local session authorization t_ra2;
insert into seen values
    ('heartbeat', pg_temp.error_of(format(
        $$select actae.heartbeat_run('tap-rten', %L)$$, :'token'))),
    ('complete', pg_temp.error_of(format(
        $$select actae.complete_run('tap-rten', %L, '"stolen"')$$, :'token'))),
    ('fail', pg_temp.error_of(format(
        $$select actae.fail_run('tap-rten', %L, 'sabotage', false)$$, :'token'))),
    ('unknown', pg_temp.error_of(format(
        $$select actae.complete_run('tap-rten-x', %L, '1')$$, :'token')));
reset session authorization;

select is((select value ->> 'sqlstate' from seen where what = 'heartbeat'), 'AC404',
    'another tenant''s heartbeat_run with the current token is AC404');
select is((select value ->> 'sqlstate' from seen where what = 'complete'), 'AC404',
    'so is its complete_run');
select is((select value ->> 'sqlstate' from seen where what = 'fail'), 'AC404',
    'and its fail_run');
select is((select value ->> 'message' from seen where what = 'complete'),
    replace((select value ->> 'message' from seen where what = 'unknown'),
        'tap-rten-x', 'tap-rten'),
    'the message is the one of an unknown run');
select is(pg_temp.ledger_digest(), :'before', 'the refused calls wrote nothing');

set local session authorization t_ra1;
select is((select status from actae.complete_run('tap-rten', :'token', '"mine"')),
    'completed', 'the owner''s tenant completes its run');
reset session authorization;

insert into actae.runs (channel_id, agent, queue, input, status, due_at, wake_reason,
    max_attempts, created_at)
values ('tap-rten-bare', 'agent', 'tap-q-rten-bare', '{}', 'queued',
    clock_timestamp() - interval '1 hour', 'start', 5, clock_timestamp());
select is((select c.status from actae.claim_run('tap-q-rten-bare', 'w1') as r
    cross join lateral actae.complete_run(r.channel_id, r.claim_token, '1') as c),
    'completed', 'a run without a channel row completes with its token');

select * from finish();
rollback;
