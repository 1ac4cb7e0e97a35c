-- What one tenant's functions must not do to or show of another tenant's
-- channel. create_channel of another tenant's existing id is AC404 (not its row), and so
-- is close_channel (which must not close it); list_completed of another tenant's channel
-- has no rows; langgraph_get_tuple and langgraph_list show nothing of another tenant's
-- thread; fork_tree leaves out a fork that belongs to another tenant; annotate_channel is
-- the owner's: a global operator, who may read every channel, gets AC404.
begin;
\ir ../helpers.psql
select plan(11);

select pg_temp.two_tenants('tap_z2_a', 'tap_z2_b', 'tap_z2_al', 'tap_z2_bl');
create role tap_z2_op login;
grant actae_operator to tap_z2_op;
create temp table seen (what text, e jsonb, n bigint);
grant insert, select on seen to public;

set local session authorization tap_z2_al;
select actae.create_channel('tap-z2-a', '{"secret": "a"}');
select actae.complete_execution(c.execution_id, c.claim_token, '"ok"')
from actae.claim_execution('tap-z2-a', 'k', 'charge', '{}') as c;
select actae.record_event('tap-z2-a', 'step', '{}');
select actae.langgraph_put('tap-z2-thread', '', 'c1', null,
    '{"id": "c1", "channel_values": {}}', '{}');
select actae.fork_channel('tap-z2-a', 1, 'tap-z2-fork-b');
select actae.fork_channel('tap-z2-a', 1, 'tap-z2-fork-a');
reset session authorization;
select actae.assign_tenant('tap-z2-fork-b', 'tap_z2_b');
select pg_temp.ledger_digest() as before \gset

set local session authorization tap_z2_bl;
insert into seen (what, e) values
    ('create', pg_temp.error_of($$select actae.create_channel('tap-z2-a')$$)),
    ('close', pg_temp.error_of($$select actae.close_channel('tap-z2-a')$$));
insert into seen (what, n) values
    ('completed', (select count(*) from actae.list_completed('tap-z2-a'))),
    ('get_tuple', (select count(*) from actae.langgraph_get_tuple('tap-z2-thread', ''))),
    ('list', (select count(*) from actae.langgraph_list('tap-z2-thread')));
reset session authorization;

select is((select e ->> 'sqlstate' from seen where what = 'create'), 'AC404',
    'create_channel of another tenant''s existing channel is AC404');
select is((select e ->> 'sqlstate' from seen where what = 'close'), 'AC404',
    'close_channel of another tenant''s channel is AC404');
select is((select closed_at from actae.channels where channel_id = 'tap-z2-a'), null,
    'and the channel is not closed');
select is(pg_temp.ledger_digest(), :'before', 'nothing was written');
select is((select n from seen where what = 'completed'), 0::bigint,
    'list_completed shows no row of another tenant''s channel');
select is((select n from seen where what = 'get_tuple'), 0::bigint,
    'langgraph_get_tuple shows no checkpoint of another tenant''s thread');
select is((select n from seen where what = 'list'), 0::bigint,
    'langgraph_list shows no checkpoint of another tenant''s thread');

set local session authorization tap_z2_al;
select is((select string_agg(channel_id, ',' order by channel_id)
    from actae.fork_tree('tap-z2-a')), 'tap-z2-a,tap-z2-fork-a',
    'fork_tree leaves out the fork another tenant owns');
select is((select count(*) from actae.list_completed('tap-z2-a')), 1::bigint,
    'the owner lists its completed row');
reset session authorization;

set local session authorization tap_z2_op;
insert into seen (what, e) values ('annotate', pg_temp.error_of(
    $$select actae.annotate_channel('tap-z2-a', 'mine now', null, null, 0)$$));
reset session authorization;
select is((select e ->> 'sqlstate' from seen where what = 'annotate'), 'AC404',
    'a global operator annotating a tenant''s channel is AC404');
select is((select count(*) from actae.annotations where channel_id = 'tap-z2-a'), 0::bigint,
    'and no annotation is written');

select * from finish();
rollback;
