-- A login in two tenants cannot create a channel (which tenant would own it is not Actae's
-- to guess: AC400), but it uses an existing channel of one of its tenants through every
-- function that creates channels on first use: start_run, create_channel, claim_execution,
-- record_event. A channel of a tenant it is not in stays AC404.
begin;
\ir ../helpers.psql
select plan(6);

create role t_nct_a nologin;
create role t_nct_b nologin;
create role t_nct_c nologin;
grant actae_agent to t_nct_a, t_nct_b, t_nct_c;
create role t_nct_login_a login;
create role t_nct_login_c login;
create role t_nct_login_ab login;
grant t_nct_a to t_nct_login_a;
grant t_nct_c to t_nct_login_c;
grant t_nct_a, t_nct_b to t_nct_login_ab;
grant execute on function pg_temp.error_of(text) to public;
create temp table seen (what text, value jsonb);
grant insert, select on seen to public;

set local session authorization t_nct_login_a;
select actae.record_event('tap-nct-a', 'hello', '{}');
set local session authorization t_nct_login_c;
select actae.record_event('tap-nct-c', 'hello', '{}');
set local session authorization t_nct_login_ab;
insert into seen values
    ('start_run', pg_temp.error_of($$select actae.start_run('tap-nct-a', 'agent', '{}',
        'tap-q-nct')$$)),
    ('create_channel', pg_temp.error_of($$select actae.create_channel('tap-nct-a')$$)),
    ('claim', pg_temp.error_of($$select actae.claim_execution('tap-nct-a', 'k', 't', '{}')$$)),
    ('record', pg_temp.error_of($$select actae.record_event('tap-nct-a', 'again', '{}')$$)),
    ('new', pg_temp.error_of($$select actae.start_run('tap-nct-new', 'agent', '{}',
        'tap-q-nct')$$)),
    ('other', pg_temp.error_of($$select actae.start_run('tap-nct-c', 'agent', '{}',
        'tap-q-nct')$$));
reset session authorization;

select is((select value from seen where what = 'start_run'), null,
    'start_run on an existing channel of one of its tenants works');
select is((select string_agg(what, ',' order by what) from seen
    where what in ('create_channel', 'claim', 'record') and value is null),
    'claim,create_channel,record', 'and so do create_channel, claim_execution, record_event');
select is((select status from actae.runs where channel_id = 'tap-nct-a'), 'queued',
    'the run is there');
select is((select value ->> 'sqlstate' from seen where what = 'new'), 'AC400',
    'a new channel is still AC400 for a login in two tenants');
select is((select count(*) from actae.channels where channel_id = 'tap-nct-new'), 0::bigint,
    'and is not created');
select is((select value ->> 'sqlstate' from seen where what = 'other'), 'AC404',
    'a channel of a tenant it is not in is AC404');

select * from finish();
rollback;
