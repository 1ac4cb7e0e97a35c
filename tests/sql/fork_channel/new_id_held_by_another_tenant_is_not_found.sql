-- A new_channel_id that another tenant's channel holds is AC404, as for a channel that
-- does not exist (not AC409 "already exists and is not this fork", which would show it is
-- there), and nothing is written.
begin;
\ir ../helpers.psql
select plan(2);
select pg_temp.two_tenants('tap_fn_1', 'tap_fn_2', 'tap_fn_a1', 'tap_fn_a2');
create temp table seen (what text, value jsonb);
grant insert, select on seen to public;

set local session authorization tap_fn_a1;
select actae.record_event('tap-fn-src', 'e', '{}');
select actae.fork_channel('tap-fn-src', 1, 'tap-fn-fork');
reset session authorization;

set local session authorization tap_fn_a2;
select actae.record_event('tap-fn-src2', 'e', '{}');
insert into seen values
('fork', pg_temp.error_of($$select actae.fork_channel('tap-fn-src2', 1, 'tap-fn-fork')$$));
reset session authorization;

select is((select value ->> 'sqlstate' from seen where what = 'fork'), 'AC404',
    'a new_channel_id another tenant holds is AC404');
select is((select parent_channel_id from actae.channels where channel_id = 'tap-fn-fork'),
    'tap-fn-src', 'and that channel is still the other tenant''s fork');

select * from finish();
rollback;
