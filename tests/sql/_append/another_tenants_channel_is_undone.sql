-- An append whose guards hold on another tenant's channel is refused as an unknown channel
-- (AC404) after its UPDATE matched: the error undoes it, nothing is written. The owner's
-- tenant appends with the same guards.
begin;
\ir ../helpers.psql
select plan(4);

select pg_temp.two_tenants('t_app_1', 't_app_2', 't_apl1', 't_apl2');
set local session authorization t_apl1;
select actae.transition_state('tap-app-ten', 'step', '{}', '{"s": 1}', 0);
reset session authorization;
select pg_temp.ledger_digest() as before \gset

set local session authorization t_apl2;
create temp table refused as
select pg_temp.error_of($$select actae.transition_state('tap-app-ten', 'step', '{}',
    '{"s": 2}', 1, 1)$$) as t,
    pg_temp.error_of($$select actae.record_event('tap-app-ten', 'note', '{}', null, 1)$$) as r;
reset session authorization;

select is((select t ->> 'sqlstate' from refused), 'AC404',
    'transition_state with guards that hold on another tenant''s channel is AC404');
select is((select r ->> 'sqlstate' from refused), 'AC404', 'so is record_event');
select is(pg_temp.ledger_digest(), :'before', 'nothing was written');

set local session authorization t_apl1;
select is((select version from actae.transition_state('tap-app-ten', 'step', '{}',
    '{"s": 2}', 1, 1)), 2::bigint, 'the owner''s tenant appends');
reset session authorization;

select * from finish();
rollback;
