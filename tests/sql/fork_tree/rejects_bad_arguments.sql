-- fork_tree: unknown channel AC404, bad channel_id or max_rows AC400.
begin;
\ir ../helpers.psql
select plan(3);

select throws_ok($$select * from actae.fork_tree('tap-nowhere')$$, 'AC404', null, 'unknown');
select throws_ok($$select * from actae.fork_tree('')$$, 'AC400', null, 'empty channel_id');
select actae.record_event('tap-ftb', 'e', '{}');
select is(pg_temp.error_of($$select * from actae.fork_tree('tap-ftb', 0)$$)
    -> 'detail' ->> 'argument', 'max_rows', 'max_rows 0 is AC400 naming it');

select * from finish();
rollback;
