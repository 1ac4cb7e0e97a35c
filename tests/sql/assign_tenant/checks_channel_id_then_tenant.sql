-- assign_tenant checks its arguments in order, before reading anything: channel_id first
-- (AC400 naming channel_id, also when the tenant is missing too), then tenant (AC400 naming
-- tenant when null, empty or longer than a role name, without echoing it), then whether
-- the tenant is a role granted actae_agent.
begin;
\ir ../helpers.psql
select plan(8);

select is(pg_temp.error_of($$select actae.assign_tenant(null, null)$$) -> 'detail' ->> 'argument',
    'channel_id', 'both missing: the error names channel_id');
select is(pg_temp.error_of($$select actae.assign_tenant('', null)$$) -> 'detail' ->> 'argument',
    'channel_id', 'an empty channel_id with no tenant: channel_id');
select is(pg_temp.error_of($$select actae.assign_tenant('tap-at-x', null)$$)
    -> 'detail' ->> 'argument', 'tenant', 'a missing tenant: AC400 naming tenant');
select is(pg_temp.error_of($$select actae.assign_tenant('tap-at-x', null)$$) ->> 'message',
    'tenant is required', 'which says the tenant is required');
select is(pg_temp.error_of($$select actae.assign_tenant('', 'no_such_role_x')$$)
    -> 'detail' ->> 'argument', 'channel_id', 'a bad channel_id before an unknown tenant');

select is(pg_temp.error_of($$select actae.assign_tenant('tap-at-x', '')$$)
    ->> 'message', 'tenant must be 1 to 63 bytes of text', 'an empty tenant: its length');
select is(pg_temp.error_of($$select actae.assign_tenant('tap-at-x', repeat('x', 64))$$)
    ->> 'message', 'tenant must be 1 to 63 bytes of text',
    'a tenant longer than a role name: its length, not the value echoed');
select ok(length(pg_temp.error_of(
        $$select actae.assign_tenant('tap-at-x', repeat('x', 100000))$$)::text) < 1000,
    'a huge tenant is not copied into the error');

select * from finish();
rollback;
