-- set_quota takes limits up to 9223372036854775806 (one below bigint's largest): that value
-- is accepted and stored for each of max_channels, max_bytes and max_events_per_channel.
begin;
\ir ../helpers.psql
select plan(2);

create role tap_ql_tenant nologin;
grant actae_agent to tap_ql_tenant;

select lives_ok($$select actae.set_quota('tap_ql_tenant', 9223372036854775806,
    9223372036854775806, 9223372036854775806)$$, 'the largest limits are accepted');
select is(
    (select array[max_channels, max_bytes, max_events_per_channel] from actae.quotas
     where tenant = 'tap_ql_tenant'::regrole),
    array[9223372036854775806, 9223372036854775806, 9223372036854775806]::bigint[],
    'and stored as given'
);

select * from finish();
rollback;
