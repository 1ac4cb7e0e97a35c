-- timeline: unknown channel AC404; bad channel_id, after_clock or max_rows AC400 naming it.
begin;
\ir ../helpers.psql
select plan(5);

select actae.record_event('tap-tlb', 'e', '{}');
select throws_ok($$select * from actae.timeline('tap-nowhere')$$, 'AC404', null,
    'an unknown channel is AC404');
select throws_ok($$select * from actae.timeline('')$$, 'AC400', null, 'empty channel_id');
select is(pg_temp.error_of($$select * from actae.timeline('tap-tlb', -1)$$)
    -> 'detail' ->> 'argument', 'after_clock', 'a negative after_clock is AC400 naming it');
select is(pg_temp.error_of($$select * from actae.timeline('tap-tlb', null, 0)$$)
    -> 'detail' ->> 'argument', 'max_rows', 'max_rows 0 is AC400 naming it');
select is(pg_temp.error_of($$select * from actae.timeline('tap-tlb', null, 10001)$$)
    ->> 'sqlstate', 'AC400', 'max_rows above 10000 is AC400');

select * from finish();
rollback;
