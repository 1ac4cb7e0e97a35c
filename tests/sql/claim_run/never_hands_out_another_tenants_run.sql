-- Queue names are shared by every tenant: claim_run hands a worker only runs of its own
-- tenant's channels, so another tenant's run of the same queue stays queued, unseen.
begin;
\ir ../helpers.psql
select plan(3);
select pg_temp.two_tenants('tap_cr_1', 'tap_cr_2', 'tap_cr_a1', 'tap_cr_a2');
create temp table seen (what text, value jsonb);
grant insert, select on seen to public;

set local session authorization tap_cr_a1;
select actae.start_run('tap-cr-run', 'agent', '{"secret": 1}', 'tap-cr-q');
reset session authorization;

set local session authorization tap_cr_a2;
insert into seen select 'claimed', to_jsonb(count(*)) from actae.claim_run('tap-cr-q', 'w2');
reset session authorization;
select is((select value from seen where what = 'claimed'), '0'::jsonb,
    'a worker of another tenant claims nothing from a queue of the same name');
select is((select status from actae.runs where channel_id = 'tap-cr-run'), 'queued',
    'the run stays queued');
set local session authorization tap_cr_a1;
select is((select channel_id from actae.claim_run('tap-cr-q', 'w1')), 'tap-cr-run',
    'its own tenant''s worker claims it');
reset session authorization;

select * from finish();
rollback;
