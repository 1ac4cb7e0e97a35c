-- An error of the channel itself is raised without an element, whichever path the batch
-- takes: here a login in two tenants creating a channel (AC400, which tenant should own it
-- is not Actae's to guess), through the set path (distinct new keys) and through the
-- element-by-element loop (a key repeated in the batch).
begin;
\ir ../helpers.psql
select plan(4);

select pg_temp.two_tenants('tap_ce_a', 'tap_ce_b', 'tap_ce_la', 'tap_ce_lb');
grant tap_ce_b to tap_ce_la;
create temp table err (path text, e jsonb);
grant insert on err to public;

set local session authorization tap_ce_la;
insert into err select 'set', pg_temp.error_of($$
    select * from actae.claim_executions('tap-ce-new', array['k1', 'k2'], array['t', 't'],
        array['{}', '{}']::jsonb[])
$$);
insert into err select 'loop', pg_temp.error_of($$
    select * from actae.claim_executions('tap-ce-new', array['k1', 'k1'], array['t', 't'],
        array['{}', '{}']::jsonb[])
$$);
reset session authorization;

select is((select e ->> 'sqlstate' from err where path = 'set'), 'AC400',
    'the set path raises the channel''s AC400');
select ok((select e ->> 'message' like 'login tap_ce_la belongs to several tenants%'
        and not e -> 'detail' ? 'element' from err where path = 'set'),
    '... without an element');
select is((select e ->> 'message' from err where path = 'loop'),
    (select e ->> 'message' from err where path = 'set'),
    'the loop raises the same message');
select ok((select not e -> 'detail' ? 'element' from err where path = 'loop'),
    '... without an element either');

select * from finish();
rollback;
