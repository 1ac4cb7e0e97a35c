-- purge runs under READ COMMITTED only (0A000 otherwise): under an older snapshot it could
-- delete a channel whose claim committed after that snapshot was taken.
begin isolation level repeatable read;
\ir ../helpers.psql
select plan(1);
select throws_ok($$select actae.purge(interval '1 day')$$, '0A000', null,
    'purge under REPEATABLE READ is 0A000');
select * from finish();
rollback;
