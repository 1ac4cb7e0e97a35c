-- key_ttl is between 1 second and 100 years with no negative part. An interval that compares
-- as short but has a huge part ('1000000 years -359999000 days' is about 2 years 9 months
-- as PostgreSQL compares intervals) is AC400 naming key_ttl, nothing written: stored, it
-- made every later purge of every channel fail with 22008 (timestamp out of range) once the
-- channel had a finished key.
begin;
\ir ../helpers.psql
select plan(6);

select pg_temp.completed('tap-kttlneg', 'k', 't', '1');
create temp table digest_before as select pg_temp.ledger_digest() as d,
    (select key_ttl from actae.channels where channel_id = 'tap-kttlneg') as ttl;

select is(pg_temp.error_of($$select actae.set_key_ttl('tap-kttlneg',
    '1000000 years -359999000 days')$$) ->> 'sqlstate', 'AC400', 'a huge part is AC400');
select is(pg_temp.error_of($$select actae.set_key_ttl('tap-kttlneg',
    '1000000 years -359999000 days')$$) -> 'detail' ->> 'argument', 'key_ttl',
    'naming key_ttl');
select is(pg_temp.error_of($$select actae.set_key_ttl('tap-kttlneg', '1 day -1 hour')$$)
    -> 'detail' ->> 'argument', 'key_ttl', 'any negative part is AC400');
select is(pg_temp.ledger_digest(), d, 'nothing was written') from digest_before;
select lives_ok($$select actae.purge('1 day', 10)$$, 'purge still runs');
select lives_ok($$select actae.set_key_ttl('tap-kttlneg', '1 year 2 mons 3 days 04:05:06')$$,
    'an interval of non-negative parts within the bounds is accepted');

select * from finish();
rollback;
