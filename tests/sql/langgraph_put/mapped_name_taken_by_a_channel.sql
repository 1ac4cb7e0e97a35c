-- A new thread namespace whose usual channel name ('langgraph:<thread_id>') is already an
-- ordinary channel gets a channel of its own ('langgraph:<uuid>'): the checkpoint never
-- lands in the existing channel.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(3);

select actae.create_channel('langgraph:tap-lg-taken');
create temp table put as select * from pg_temp.lg_put('tap-lg-taken', '', 'cp-1');

select isnt(pg_temp.lg_channel('tap-lg-taken'), 'langgraph:tap-lg-taken',
    'the mapping is not the existing channel');
select is((select channel_id from put), pg_temp.lg_channel('tap-lg-taken'),
    'the checkpoint went to the mapped channel');
select is((select count(*) from actae.events where channel_id = 'langgraph:tap-lg-taken'),
    0::bigint, 'the existing channel has no event');

select * from finish();
rollback;
