-- decision_trail: a cursor beyond the head or an unknown channel AC404; a missing or
-- negative cursor or bad max_results AC400 naming it.
begin;
\ir ../helpers.psql
select plan(5);

select pg_temp.record_steps('tap-dtb', 2);
select is(pg_temp.error_of($$select actae.decision_trail('tap-dtb', 3)$$) ->> 'sqlstate',
    'AC404', 'a cursor beyond the head');
select is(pg_temp.error_of($$select actae.decision_trail('tap-nowhere', 0)$$) ->> 'sqlstate',
    'AC404', 'an unknown channel');
select is(pg_temp.error_of($$select actae.decision_trail('tap-dtb', null)$$)
    -> 'detail' ->> 'argument', 'cursor', 'a missing cursor');
select is(pg_temp.error_of($$select actae.decision_trail('tap-dtb', -1)$$)
    -> 'detail' ->> 'argument', 'cursor', 'a negative cursor');
select is(pg_temp.error_of($$select actae.decision_trail('tap-dtb', 1, 0)$$)
    -> 'detail' ->> 'argument', 'max_results', 'max_results 0');

select * from finish();
rollback;
