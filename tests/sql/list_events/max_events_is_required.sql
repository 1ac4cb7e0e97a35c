-- max_events is required: a null max_events is AC400 naming max_events ("max_events is
-- required"), not a page without a bound.
begin;
\ir ../helpers.psql
select plan(3);

select pg_temp.record_steps('tap-lmr', 3);
select is(
    pg_temp.error_of($$select * from actae.list_events('tap-lmr', 0, null)$$) ->> 'sqlstate',
    'AC400', 'a null max_events is AC400');
select is(
    pg_temp.error_of($$select * from actae.list_events('tap-lmr', 0, null)$$)
        -> 'detail' ->> 'argument',
    'max_events', 'naming max_events');
select is(
    pg_temp.error_of($$select * from actae.list_events('tap-lmr', 1, null)$$) ->> 'message',
    'max_events is required', 'saying it is required');

select * from finish();
rollback;
