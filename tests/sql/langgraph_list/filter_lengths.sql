-- langgraph_list and langgraph_get_tuple take a checkpoint id (or list's before) of the
-- length langgraph_put takes, 1..100 bytes, and a checkpoint_ns of at most 1024 bytes:
-- a longer one names nothing that can exist and is AC400 naming it, not an empty answer.
begin;
\ir ../helpers.psql
select plan(6);

select is(pg_temp.error_of($$select * from actae.langgraph_list(p_checkpoint_id =>
    repeat('c', 101))$$) -> 'detail' ->> 'argument', 'checkpoint_id',
    'list: a checkpoint_id over 100 bytes is AC400 naming it');
select is(pg_temp.error_of($$select * from actae.langgraph_list(p_before => repeat('b', 101))$$)
    -> 'detail' ->> 'argument', 'before', 'list: before over 100 bytes is AC400 naming it');
select is(pg_temp.error_of($$select * from actae.langgraph_list(p_checkpoint_ns =>
    repeat('n', 1025))$$) -> 'detail' ->> 'argument', 'checkpoint_ns',
    'list: a checkpoint_ns over 1024 bytes is AC400 naming it');
select is(pg_temp.error_of($$select * from actae.langgraph_list(p_thread_id => 't',
    p_checkpoint_ns => '', p_before => repeat('b', 100), p_checkpoint_id => repeat('c', 100))$$),
    null, 'list: the longest of each, and the root namespace, are taken');
select is(pg_temp.error_of($$select * from actae.langgraph_get_tuple('t', '',
    repeat('c', 101))$$) -> 'detail' ->> 'argument', 'checkpoint_id',
    'get_tuple: a checkpoint_id over 100 bytes is AC400 naming it');
select is(pg_temp.error_of($$select * from actae.langgraph_get_tuple('t', '',
    repeat('c', 100))$$), null, 'get_tuple: 100 bytes are taken');

select * from finish();
rollback;
