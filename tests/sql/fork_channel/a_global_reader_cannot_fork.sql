-- The source of a fork must be a channel of the caller's tenant: reading it is not enough. A
-- global operator (actae_operator: reads every tenant's channels, and may call the API) who
-- forks a tenant's channel gets AC404, as for an unknown channel, and nothing is written;
-- the same operator reads that channel.
begin;
\ir ../helpers.psql
select plan(4);

select pg_temp.two_tenants('t_grf_1', 't_grf_2', 't_grf_a', 't_grf_b');
create role t_grf_op login;
grant actae_operator to t_grf_op;
create temp table seen (what text, e jsonb);
grant insert, select on seen to public;

set local session authorization t_grf_a;
select actae.record_event('tap-grf', 'e', '{}');
reset session authorization;
select pg_temp.ledger_digest() as before \gset

set local session authorization t_grf_op;
insert into seen values
    ('read', to_jsonb((select head_cursor from actae.get_channel('tap-grf')))),
    ('fork', pg_temp.error_of($$select actae.fork_channel('tap-grf', 1, 'tap-grf-op')$$)),
    ('fork by op', pg_temp.error_of(
        $$select actae.fork_channel('tap-grf', 0, null, 'op-grf')$$));
reset session authorization;

select is((select e from seen where what = 'read'), '1'::jsonb,
    'the operator reads the channel');
select is((select e ->> 'sqlstate' from seen where what = 'fork'), 'AC404',
    'but forking it is AC404');
select is((select e ->> 'sqlstate' from seen where what = 'fork by op'), 'AC404',
    'also under an operation_id');
select is(pg_temp.ledger_digest(), :'before', 'nothing was written');

select * from finish();
rollback;
