-- Append quota (actae._check_append_quota, called by every append): a channel at its
-- tenant's max_events_per_channel refuses record_event and transition_state with AC429
-- and writes nothing; a tenant over max_bytes as last measured cannot append; removing
-- the quota lifts both; a tenant without a quota is not limited.
begin;
\ir ../helpers.psql
select plan(10);

create role tap_a_ten nologin;
grant actae_agent to tap_a_ten;
insert into actae.channels (channel_id, tenant) values
    ('tap-a', 'tap_a_ten'::regrole), ('tap-a-free', 'actae_agent'::regrole);
select actae.set_quota('tap_a_ten', null, null, 2);
select actae.record_event('tap-a', 'step', '{}');
select actae.transition_state('tap-a', 'step', '{}', '{"n": 2}', 0);

create temp table digest as select pg_temp.ledger_digest() as d;
create temp table refused as
select pg_temp.error_of($$select actae.record_event('tap-a', 'step', '{}')$$) as e;
select is((select e ->> 'sqlstate' from refused), 'AC429',
    'a third event in a channel limited to 2 is AC429');
select is((select e -> 'detail' ->> 'quota' from refused), 'max_events_per_channel',
    'DETAIL names the quota');
select is((select e -> 'detail' ->> 'channel_id' from refused), 'tap-a',
    'and the channel');
select is((select e -> 'detail' ->> 'used' from refused), '2',
    'and the events the channel had (the refused one is not counted)');
select is(pg_temp.error_of($$select actae.transition_state('tap-a', 's', '{}', '{}', 1)$$)
    ->> 'sqlstate', 'AC429', 'transition_state too');
select is(pg_temp.ledger_digest(), (select d from digest), 'nothing was written');

select actae.set_quota('tap_a_ten', null, 1, null);
select actae.measure_usage();
select is(pg_temp.error_of($$select actae.record_event('tap-a', 'step', '{}')$$)
    -> 'detail' ->> 'quota', 'max_bytes', 'over max_bytes (measured), appends are AC429');

select actae.set_quota('tap_a_ten');
select is((actae.record_event('tap-a', 'step', '{}')).cursor, 3::bigint,
    'without a quota the channel grows again');
select is((actae.record_event('tap-a-free', 'step', '{}')).cursor, 1::bigint,
    'a tenant without a quota appends');
select is((select count(*) from actae.quotas where tenant = 'tap_a_ten'::regrole), 0::bigint,
    'the quota row is gone');

select * from finish();
rollback;
