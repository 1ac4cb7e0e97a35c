-- close_channel never creates a channel: an unknown channel is AC404 and nothing is
-- written (set_key_ttl, by contrast, creates it on first use).
begin;
\ir ../helpers.psql
select plan(2);

select pg_temp.ledger_digest() as before \gset
select is(pg_temp.error_of($$select actae.close_channel('tap-ccu-none')$$) ->> 'sqlstate',
    'AC404', 'closing an unknown channel is AC404');
select is(pg_temp.ledger_digest(), :'before', 'and no channel is created');

select * from finish();
rollback;
