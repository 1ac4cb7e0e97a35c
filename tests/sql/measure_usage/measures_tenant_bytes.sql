-- actae.measure_usage: records, for every tenant with a quota, its channel count and the
-- stored bytes of its channels, events, snapshots, operation ids and executions; another
-- tenant's rows are not counted; an agent cannot call it (operator only).
begin;
\ir ../helpers.psql
select plan(6);

create role tap_m_a nologin;
create role tap_m_b nologin;
grant actae_agent to tap_m_a, tap_m_b;
select actae.set_quota('tap_m_a', null, 1000000000);
insert into actae.channels (channel_id, tenant) values
    ('tap-m-a1', 'tap_m_a'::regrole), ('tap-m-a2', 'tap_m_a'::regrole),
    ('tap-m-b1', 'tap_m_b'::regrole);
select actae.record_event('tap-m-a1', 'step', jsonb_build_object('pad', repeat('x', 5000)));
select actae.transition_state('tap-m-a2', 'step', '{}', '{"s": 1}', 0);
select pg_temp.completed('tap-m-a2', 'k', 't', '"r"');
select actae.record_event('tap-m-b1', 'step', jsonb_build_object('pad', repeat('y', 90000)));

-- Only this test's tenants are looked at: a quota row of a tenant another test left behind
-- is measured too.
create temp table measured as select * from actae.measure_usage()
where tenant in ('tap_m_a'::regrole, 'tap_m_b'::regrole);
select is((select count(*) from measured), 1::bigint, 'only tenants with a quota');
select is((select used_channels from measured), 2::bigint, 'tap_m_a has 2 channels');
-- The same rows measured here (a whole-row datum's header may differ by a few bytes).
select ok((select abs(used_bytes - expected) <= 16 from measured, (select sum(b)::bigint as expected from (
        select pg_column_size(c.*) as b from actae.channels as c where c.tenant = 'tap_m_a'::regrole
        union all select pg_column_size(e.*) from actae.events as e
            where e.channel_id in ('tap-m-a1', 'tap-m-a2')
        union all select pg_column_size(s.*) from actae.snapshots as s
            where s.channel_id in ('tap-m-a1', 'tap-m-a2')
        union all select pg_column_size(x.*) from actae.executions as x
            where x.channel_id in ('tap-m-a1', 'tap-m-a2')
    ) as t) as e),
    'bytes are the stored size of its rows');
select cmp_ok((select used_bytes from measured), '<', 20000::bigint,
    'tenant b''s 90 kB event is not counted to a');
select is((select measured_at from actae.quotas where tenant = 'tap_m_a'::regrole),
    (select measured_at from measured), 'recorded in actae.quotas');

set local role actae_agent;
select throws_ok($$select actae.measure_usage()$$, '42501', null,
    'an agent may not measure usage');
reset role;

select * from finish();
rollback;
