-- A negative max_bytes or max_events_per_channel is AC400 whose message names that
-- argument, and no quota row is stored.
begin;
\ir ../helpers.psql
select plan(5);

create role tap_qn_tenant nologin;
grant actae_agent to tap_qn_tenant;

select throws_ok($$select actae.set_quota('tap_qn_tenant', null, -1)$$, 'AC400', null,
    'a negative max_bytes is AC400');
select throws_like($$select actae.set_quota('tap_qn_tenant', null, -1)$$,
    'max\_bytes must be between 0 and %', 'naming max_bytes');
select throws_ok($$select actae.set_quota('tap_qn_tenant', null, null, -1)$$, 'AC400', null,
    'a negative max_events_per_channel is AC400');
select throws_like($$select actae.set_quota('tap_qn_tenant', null, null, -1)$$,
    'max\_events\_per\_channel must be between 0 and %', 'naming max_events_per_channel');
select is((select count(*) from actae.quotas where tenant = 'tap_qn_tenant'::regrole),
    0::bigint, 'no quota row is stored');

select * from finish();
rollback;
