-- fork_channel checks its arguments before it looks the source up: a bad at_cursor,
-- new_channel_id, operation_id or tool_policies is AC400 naming that argument even when the
-- source is unknown or another tenant's (not AC404), and a fork at a cursor beyond the head
-- with a reserved operation_id is AC400 too. Nothing is written.
begin;
\ir ../helpers.psql
select plan(7);

select pg_temp.two_tenants('t_fab_1', 't_fab_2', 't_fab_a', 't_fab_b');
set local session authorization t_fab_a;
select actae.record_event('tap-fab-a', 'e', '{}');
reset session authorization;
create temp table seen (what text, e jsonb);
grant insert, select on seen to public;
select pg_temp.ledger_digest() as before \gset

insert into seen values
    ('cursor', pg_temp.error_of($$select actae.fork_channel('tap-fab-nowhere', -1)$$)),
    ('null cursor', pg_temp.error_of($$select actae.fork_channel('tap-fab-nowhere', null)$$)),
    ('new id', pg_temp.error_of(format(
        $$select actae.fork_channel('tap-fab-nowhere', 0, %L)$$, repeat('n', 257)))),
    ('operation', pg_temp.error_of(
        $$select actae.fork_channel('tap-fab-nowhere', 0, null, 'actae.sleep:x')$$)),
    ('policies', pg_temp.error_of(
        $$select actae.fork_channel('tap-fab-nowhere', 0, null, null, '{"t": "rerun"}')$$));
set local session authorization t_fab_b;
insert into seen values
    ('other tenant', pg_temp.error_of($$select actae.fork_channel('tap-fab-a', -1)$$));
reset session authorization;
set local session authorization t_fab_a;
insert into seen values
    ('beyond head', pg_temp.error_of(
        $$select actae.fork_channel('tap-fab-a', 5, null, 'actae.wait:x')$$));
reset session authorization;

select is((select count(*) from seen where e ->> 'sqlstate' = 'AC400'), 7::bigint,
    'every one is AC400, none AC404');
select is((select e -> 'detail' ->> 'argument' from seen where what = 'cursor'), 'at_cursor',
    'a negative cursor of an unknown source names at_cursor');
select is((select e -> 'detail' ->> 'argument' from seen where what = 'new id'),
    'new_channel_id', 'an over-long new_channel_id is named');
select is((select e -> 'detail' ->> 'argument' from seen where what = 'operation'),
    'operation_id', 'a reserved operation_id is named');
select is((select e -> 'detail' ->> 'argument' from seen where what = 'policies'),
    'tool_policies', 'bad tool_policies are named');
select is(
    (select array_agg(e -> 'detail' ->> 'argument' order by what) from seen
     where what in ('other tenant', 'beyond head')),
    array['operation_id', 'at_cursor'],
    'another tenant''s source with a bad cursor, and a reserved id beyond the head, too');
select is(pg_temp.ledger_digest(), :'before', 'none of these calls wrote anything');

select * from finish();
rollback;
