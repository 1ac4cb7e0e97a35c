-- Bad arguments are AC400 naming the argument, and write nothing.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(8);

create temp table digest_before as select pg_temp.lg_digest() as d;
select throws_ok($$select pg_temp.lg_put(null, '', 'cp')$$, 'AC400',
    'thread_id must be 1 to 1024 bytes of text', 'a null thread_id');
select throws_ok($$select pg_temp.lg_put(repeat('t', 1025), '', 'cp')$$, 'AC400',
    'thread_id must be 1 to 1024 bytes of text', 'a thread_id of 1025 bytes');
select throws_ok($$select pg_temp.lg_put('t', null, 'cp')$$, 'AC400',
    'checkpoint_ns is required', 'a null checkpoint_ns');
select throws_ok($$select pg_temp.lg_put('t', '', repeat('c', 101))$$, 'AC400',
    'checkpoint_id must be 1 to 100 bytes of text', 'a checkpoint_id of 101 bytes');
select throws_ok($$select pg_temp.lg_put('t', '', 'cp', '')$$, 'AC400',
    'parent_checkpoint_id must be 1 to 100 bytes of text', 'an empty parent_checkpoint_id');
select throws_ok($$select pg_temp.lg_put('t', '', 'cp', null, '[]')$$, 'AC400',
    'metadata must be a JSON object', 'metadata that is not an object');
select throws_ok($$select actae.langgraph_put('t', '', 'cp', null, '"x"', '{}')$$, 'AC400',
    'checkpoint must be a JSON object', 'a checkpoint that is not an object');
select is(pg_temp.lg_digest(), d, 'nothing was written') from digest_before;

select * from finish();
rollback;
