-- Elements are paired by position and read as element 1 .. n, so an array indexed from
-- another bound ('[0:1]={...}') would pair the wrong params or dedup_fields with a key:
-- each array argument must be indexed from 1, else AC400 naming it (and its bound), and
-- nothing is written.
begin;
\ir ../helpers.psql
select plan(5);

select pg_temp.ledger_digest() as before \gset

select is(pg_temp.error_of($$select * from actae.claim_executions('tap-lb',
        '[0:1]={k1,k2}'::text[], array['t', 't'], array['{}', '{}']::jsonb[])$$)
    ->> 'message', 'key_names must be an array indexed from 1, not from 0',
    'key_names from 0 is refused, naming it');
select is(pg_temp.error_of($$select * from actae.claim_executions('tap-lb',
        array['k1', 'k2'], '[2:3]={t,t}'::text[], array['{}', '{}']::jsonb[])$$)
    -> 'detail', '{"argument": "tool_names", "lower_bound": 2}',
    'tool_names from 2: DETAIL names it and its bound');
select is(pg_temp.error_of($$select * from actae.claim_executions('tap-lb',
        array['k1', 'k2'], array['t', 't'], '[0:1]={"{\"a\": 1}","{}"}'::jsonb[])$$)
    ->> 'sqlstate', 'AC400', 'params from 0 is refused');
select is(pg_temp.error_of($$select * from actae.claim_executions('tap-lb',
        array['k1', 'k2'], array['t', 't'], array['{"a": 1}', '{"b": 2}']::jsonb[],
        '[0:1]={"[\"a\"]","[\"b\"]"}'::jsonb[])$$) ->> 'message',
    'dedup_fields must be an array indexed from 1, not from 0',
    'dedup_fields from 0 is refused');
select is(pg_temp.ledger_digest(), :'before', 'nothing was written');

select * from finish();
rollback;
