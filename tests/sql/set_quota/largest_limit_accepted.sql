-- set_quota takes limits up to 9223372036854775806 (one below bigint's largest): that value
-- is accepted and stored for each of max_channels, max_bytes and max_events_per_channel;
-- bigint's largest is AC400 naming the argument, as the function's header says.
begin;
\ir ../helpers.psql
select plan(5);

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

select throws_ok(
    format($$select actae.set_quota('tap_ql_tenant', %s)$$, a.args), 'AC400',
    format('%s must be between 0 and 9223372036854775806', a.name),
    format('%s of bigint''s largest is refused', a.name)
) from (values
    ('max_channels', '9223372036854775807'),
    ('max_bytes', 'null, 9223372036854775807'),
    ('max_events_per_channel', 'null, null, 9223372036854775807')
) as a (name, args);

select * from finish();
rollback;
