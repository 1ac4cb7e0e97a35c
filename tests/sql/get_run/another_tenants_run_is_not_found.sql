-- get_run of another tenant's run answers AC404 (its input, result and error unseen), and
-- list_runs shows none of its runs.
begin;
\ir ../helpers.psql
select plan(3);
select pg_temp.two_tenants('tap_gr_1', 'tap_gr_2', 'tap_gr_a1', 'tap_gr_a2');
create temp table seen (what text, value jsonb);
grant insert, select on seen to public;

set local session authorization tap_gr_a1;
select actae.start_run('tap-gr-run', 'agent', '{"secret": 1}', 'tap-gr-q');
insert into seen select 'own', to_jsonb(count(*)) from actae.list_runs('tap-gr-q');
reset session authorization;

set local session authorization tap_gr_a2;
insert into seen values ('get_run', pg_temp.error_of($$select actae.get_run('tap-gr-run')$$));
insert into seen select 'list_runs', to_jsonb(count(*)) from actae.list_runs('tap-gr-q');
reset session authorization;

select is((select value ->> 'sqlstate' from seen where what = 'get_run'), 'AC404',
    'get_run of another tenant''s run is AC404');
select is((select value from seen where what = 'list_runs'), '0'::jsonb,
    'list_runs shows no run of another tenant');
select is((select value from seen where what = 'own'), '1'::jsonb,
    'while its own tenant lists it');

select * from finish();
rollback;
