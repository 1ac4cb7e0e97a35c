-- actae_auditor may read checkpoints (langgraph_get_tuple, langgraph_list) but not store
-- them.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(3);

select pg_temp.lg_put('tap-lg-aud', '', 'cp-1');
set local role actae_auditor;
select is((select checkpoint_id from actae.langgraph_get_tuple('tap-lg-aud', '')), 'cp-1',
    'the auditor reads a checkpoint');
select is((select count(*) from actae.langgraph_list('tap-lg-aud')), 1::bigint,
    'the auditor lists checkpoints');
select throws_ok($$select actae.langgraph_put('tap-lg-aud', '', 'cp-2', null, '{}', '{}')$$,
    '42501', null, 'the auditor cannot store one');
reset role;

select * from finish();
rollback;
