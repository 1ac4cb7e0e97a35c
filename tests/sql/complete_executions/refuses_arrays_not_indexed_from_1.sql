-- Elements are paired by position and read as element 1 .. n, so a results array indexed
-- from 0 would store one element's result on another's execution: each array argument
-- must be indexed from 1, else AC400 naming it, and nothing is recorded (with or without
-- channel_id).
begin;
\ir ../helpers.psql
select plan(5);

create temp table c as
select execution_id, claim_token, key_name
from actae.claim_executions('tap-clb', array['k1', 'k2'], array['t', 't'],
    array['{}', '{}']::jsonb[]);
select pg_temp.ledger_digest() as before \gset

select is(pg_temp.error_of($$select * from actae.complete_executions(
        array(select execution_id from c order by key_name),
        array(select claim_token from c order by key_name),
        '[0:1]={"\"for k1\"","\"for k2\""}'::jsonb[], 'tap-clb')$$) ->> 'message',
    'results must be an array indexed from 1, not from 0',
    'results from 0 is refused, naming it');
select is(pg_temp.error_of($$select * from actae.complete_executions(
        array(select execution_id from c order by key_name),
        array(select claim_token from c order by key_name),
        '[0:1]={"\"for k1\"","\"for k2\""}'::jsonb[])$$) ->> 'sqlstate', 'AC400',
    '... without channel_id too');
select is(pg_temp.error_of($$select * from actae.complete_executions(
        array(select execution_id from c order by key_name),
        '[5:6]={00000000-0000-0000-0000-000000000000,00000000-0000-0000-0000-000000000000}'
            ::uuid[], null, 'tap-clb')$$) -> 'detail',
    '{"argument": "claim_tokens", "lower_bound": 5}', 'claim_tokens from 5: DETAIL names it');
select is(pg_temp.error_of($$select * from actae.complete_executions(
        '[0:1]={00000000-0000-0000-0000-000000000000,00000000-0000-0000-0000-000000000001}'
            ::uuid[], array(select claim_token from c order by key_name), null,
        'tap-clb')$$) ->> 'message', 'execution_ids must be an array indexed from 1, not from 0',
    'execution_ids from 0 is refused');
select is(pg_temp.ledger_digest(), :'before', 'nothing was recorded');

select * from finish();
rollback;
