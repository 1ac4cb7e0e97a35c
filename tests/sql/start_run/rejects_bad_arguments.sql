-- Limits (SPEC 7): channel_id, agent, queue 1-256 bytes; input at most 1 MiB; max_attempts
-- 1-1000. Each edge is accepted, one past it is AC400 naming the argument; nothing is written.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(12);

create temp table before as select pg_temp.ledger_digest() as d,
    (select count(*) from actae.runs) as n;
select is(pg_temp.error_of($$select actae.start_run(repeat('c', 257), 'a', '1')$$)
    -> 'detail' ->> 'argument', 'channel_id', 'channel_id of 257 bytes');
select is(pg_temp.error_of($$select actae.start_run('tap-sr5', '', '1')$$)
    -> 'detail' ->> 'argument', 'agent', 'empty agent');
select is(pg_temp.error_of($$select actae.start_run('tap-sr5', null, '1')$$)
    -> 'detail' ->> 'argument', 'agent', 'null agent');
select is(pg_temp.error_of($$select actae.start_run('tap-sr5', repeat('a', 257), '1')$$)
    -> 'detail' ->> 'argument', 'agent', 'agent of 257 bytes');
select is(pg_temp.error_of($$select actae.start_run('tap-sr5', 'a', '1', repeat('q', 257))$$)
    -> 'detail' ->> 'argument', 'queue', 'queue of 257 bytes');
select is(pg_temp.error_of($$select actae.start_run('tap-sr5', 'a',
    to_jsonb(repeat('x', 1048577)))$$) -> 'detail' ->> 'argument', 'input', 'input over 1 MiB');
select is(pg_temp.error_of($$select actae.start_run('tap-sr5', 'a', '1', 'q', null, 0)$$)
    -> 'detail' ->> 'argument', 'max_attempts', 'max_attempts 0');
select is(pg_temp.error_of($$select actae.start_run('tap-sr5', 'a', '1', 'q', null, 1001)$$)
    ->> 'sqlstate', 'AC400', 'max_attempts 1001 is AC400');
select is((select pg_temp.ledger_digest()), (select d from before), 'nothing was written');
select is((select count(*) from actae.runs), (select n from before), 'no run was created');
select lives_ok($$select actae.start_run(repeat('c', 256), repeat('a', 256), '1',
    repeat('q', 256), null, 1000)$$, 'every upper edge is accepted');
select lives_ok($$select actae.start_run('tap-sr5-min', 'a', '1', 'q', null, 1)$$,
    'max_attempts 1 is accepted');

select * from finish();
rollback;
