-- checkpoint_ns is at most 1024 bytes: 1024 is accepted, 1025 is AC400 naming
-- checkpoint_ns and writes nothing.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(5);

select lives_ok($$select pg_temp.lg_put('tap-lg-ns', repeat('n', 1024), 'cp-1')$$,
    'a checkpoint_ns of 1024 bytes is accepted');
select is((select count(*) from actae.langgraph_checkpoints
           where channel_id = pg_temp.lg_channel('tap-lg-ns', repeat('n', 1024))),
    1::bigint, 'and its checkpoint stored');
create temp table digest_before as select pg_temp.lg_digest() as d;
select throws_ok($$select pg_temp.lg_put('tap-lg-ns', repeat('n', 1025), 'cp-1')$$,
    'AC400', 'checkpoint_ns must be at most 1024 bytes of text', 'one of 1025 bytes is AC400');
select is(pg_temp.error_of($$select pg_temp.lg_put('tap-lg-ns', repeat('n', 1025), 'cp-1')$$)
    -> 'detail' ->> 'argument', 'checkpoint_ns', 'naming checkpoint_ns');
select is(pg_temp.lg_digest(), d, 'nothing was written') from digest_before;

select * from finish();
rollback;
