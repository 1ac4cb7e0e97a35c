-- follow_channel and the watch cap: a caller that is not a global reader (an agent) is
-- capped as watch_channel is (AC429 past _limit('watched_channels'), writing nothing;
-- renewals pass); a global auditor is not.
begin;
\ir ../helpers.psql
select plan(5);

create role tap_f_ten nologin;
create role tap_f_auditor login;
grant actae_agent to tap_f_ten;
grant actae_auditor to tap_f_auditor;
insert into actae.channels (channel_id, tenant)
select 'tap-f-' || i, 'tap_f_ten'::regrole from generate_series(1, 1001) as i;
select count(actae.watch_channel('tap-f-' || i, 60)) from generate_series(1, 1000) as i;

create temp table digest as select pg_temp.ledger_digest() as d;
create temp table refused as
select pg_temp.error_of($$select actae.follow_channel('tap-f-1001', 60)$$) as e;
select is((select e ->> 'sqlstate' from refused), 'AC429',
    'an agent following a 1001st channel of its tenant is AC429');
select is((select e -> 'detail' ->> 'quota' from refused), 'watched_channels',
    'naming the cap');
select is(pg_temp.ledger_digest(), (select d from digest), 'and writes nothing');
select is(pg_temp.error_of($$select actae.follow_channel('tap-f-1', 600)$$), null,
    'renewing a live registration passes at the cap');
create temp table auditor_follow (e jsonb);
grant insert on auditor_follow to tap_f_auditor;
grant execute on function pg_temp.error_of(text) to public;
set local session authorization tap_f_auditor;
insert into auditor_follow
select pg_temp.error_of($$select actae.follow_channel('tap-f-1001', 60)$$);
reset session authorization;
select is((select e from auditor_follow), null, 'a global auditor is not capped');

select * from finish();
rollback;
