-- timeline shows a cancellation: cancel_requested while the owner still holds the
-- execution, cancelled once it failed because of it (with the 'cancelled: <reason>' error).
begin;
\ir ../helpers.psql
select plan(2);

select actae.record_event('tap-tlc', 'e', '{}');
create temp table c1 as select * from actae.claim_execution('tap-tlc', 'a', 't', '{}');
create temp table c2 as select * from actae.claim_execution('tap-tlc', 'b', 't', '{}');
select actae.cancel_execution(execution_id, 'operator said so') from c1;
select actae.cancel_execution(execution_id, 'stop') from c2;
select actae.fail_execution(execution_id, 'cancelled: stop', claim_token, false) from c2;

select results_eq(
    $$select key_name, error from actae.timeline('tap-tlc') where kind = 'cancel_requested'$$,
    $$values ('a'::text, 'operator said so'::text)$$,
    'an in-flight cancellation is cancel_requested, with its reason');
select results_eq(
    $$select key_name, error from actae.timeline('tap-tlc') where kind in ('cancelled', 'failed')$$,
    $$values ('b'::text, 'cancelled: stop'::text)$$,
    'a failure caused by a cancellation is cancelled');

select * from finish();
rollback;
