-- actae.set_quota: the operator sets a tenant's limits (null = no limit), replaces them,
-- and removes the row when every limit is null; a role that is not a tenant (also a tenant's
-- login), a null tenant or a negative limit is AC400 naming the argument and writes
-- nothing; an agent cannot call it (operator only).
begin;
\ir ../helpers.psql
select plan(11);

create role tap_q_tenant nologin;
grant actae_agent to tap_q_tenant;
create role tap_q_plain nologin;
create role tap_q_login login;
grant tap_q_tenant to tap_q_login;

select results_eq(
    $$select max_channels, max_bytes, max_events_per_channel
      from actae.set_quota('tap_q_tenant', 10, null, 500)$$,
    $$values (10::bigint, null::bigint, 500::bigint)$$, 'sets the limits, null = none');
select results_eq(
    $$select max_channels, max_bytes from actae.set_quota('tap_q_tenant', 20, 1000000)$$,
    $$values (20::bigint, 1000000::bigint)$$, 'a second call replaces them');
select is((select count(*) from actae.quotas where tenant = 'tap_q_tenant'::regrole),
    1::bigint, 'one row per tenant');
select is((select count(*) from actae.set_quota('tap_q_tenant')), 0::bigint,
    'every limit null returns nothing');
select is((select count(*) from actae.quotas where tenant = 'tap_q_tenant'::regrole),
    0::bigint, 'and removes the row');

create temp table before_bad as select md5(coalesce(string_agg(q::text, ','), '')) as d
from actae.quotas as q;
select is(pg_temp.error_of($$select actae.set_quota('tap_q_plain', 1)$$)
    -> 'detail' ->> 'argument', 'tenant', 'a role not granted actae_agent is not a tenant');
select is(pg_temp.error_of($$select actae.set_quota('tap_q_login', 1)$$) ->> 'sqlstate',
    'AC400', 'a tenant''s login (an agent only through its tenant) is not a tenant');
select is(pg_temp.error_of($$select actae.set_quota('actae_agent', 1)$$) ->> 'sqlstate',
    'AC400', 'actae_agent itself is not a tenant one can limit');
select is(pg_temp.error_of($$select actae.set_quota('tap_q_tenant', -1)$$)
    -> 'detail' ->> 'argument', 'max_channels', 'a negative limit names its argument');
select is((select md5(coalesce(string_agg(q::text, ','), '')) from actae.quotas as q),
    (select d from before_bad), 'refused calls wrote nothing');

set local role actae_agent;
select throws_ok($$select actae.set_quota('tap_q_tenant', 1)$$, '42501', null,
    'an agent may not set quotas');
reset role;

select * from finish();
rollback;
