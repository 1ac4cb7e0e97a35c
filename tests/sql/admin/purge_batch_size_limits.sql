-- purge's batch_size is 1..100000 (_limit('batch_size')): 100000 is accepted, 100001 and
-- null are AC400 naming batch_size.
begin;
\ir ../helpers.psql
select plan(3);

select is(pg_temp.error_of($$select actae.purge('1 day', 100000)$$), null,
    'batch_size 100000 is accepted');
select is(pg_temp.error_of($$select actae.purge('1 day', 100001)$$) -> 'detail' ->> 'argument',
    'batch_size', 'batch_size 100001 is AC400 naming batch_size');
select is(pg_temp.error_of($$select actae.purge('1 day', null)$$) -> 'detail' ->> 'argument',
    'batch_size', 'a null batch_size is AC400 naming batch_size');

select * from finish();
rollback;
