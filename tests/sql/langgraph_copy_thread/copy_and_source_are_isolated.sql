-- After a copy, what either thread stores is not seen by the other.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(2);

select pg_temp.lg_put('tap-lg-iso', '', 'cp-1');
select actae.langgraph_copy_thread('tap-lg-iso', 'tap-lg-iso-copy');
select pg_temp.lg_put('tap-lg-iso', '', 'cp-2', 'cp-1');
select pg_temp.lg_put('tap-lg-iso-copy', '', 'cp-3', 'cp-1');
select is((select array_agg(checkpoint_id) from actae.langgraph_list('tap-lg-iso')),
    array['cp-2', 'cp-1'], 'the source does not see the copy''s checkpoint');
select is((select array_agg(checkpoint_id) from actae.langgraph_list('tap-lg-iso-copy')),
    array['cp-3', 'cp-1'], 'the copy does not see the source''s');

select * from finish();
rollback;
