-- max_bytes = 0 forbids at once (set_quota: "0 forbids (no new channel, no append)"), before
-- measure_usage has measured the tenant: usage never measured counts as 0 bytes, which is
-- not under a limit of 0. A limit above 0 lets an unmeasured tenant write.
begin;
\ir ../helpers.psql
select plan(4);

create role tap_zb_ten nologin;
grant actae_agent to tap_zb_ten;
insert into actae.channels (channel_id, tenant) values ('tap-zb', 'tap_zb_ten'::regrole);
select actae.set_quota('tap_zb_ten', null, 0, null);
select is((select used_bytes from actae.quotas where tenant = 'tap_zb_ten'::regrole), null,
    'the tenant was never measured');
select pg_temp.ledger_digest() as before \gset
select is(pg_temp.error_of($$select actae.record_event('tap-zb', 'step', '{}')$$) ->> 'sqlstate',
    'AC429', 'an append under max_bytes 0 is AC429');
select is(pg_temp.ledger_digest(), :'before', 'nothing was written');
select actae.set_quota('tap_zb_ten', null, 1, null);
select is((select outcome from actae.record_event('tap-zb', 'step', '{}')), 'recorded',
    'max_bytes 1: an unmeasured tenant appends');

select * from finish();
rollback;
