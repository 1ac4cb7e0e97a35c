-- list_channels' text filters have byte limits: tag 1..64 bytes, agent and parent_channel_id
-- and before_channel_id 1..256 bytes; at the limit they are accepted, one byte more is AC400
-- naming the argument.
begin;
\ir ../helpers.psql
select plan(6);

select is(pg_temp.error_of(format('select * from actae.list_channels(p_tag => %L)',
    repeat('t', 64))), null, 'a 64-byte tag is accepted');
select is(pg_temp.error_of(format('select * from actae.list_channels(p_tag => %L)',
    repeat('t', 65))) -> 'detail' ->> 'argument', 'tag', 'a 65-byte tag is AC400 naming tag');
select is(pg_temp.error_of(format('select * from actae.list_channels(p_agent => %L)',
    repeat('a', 256))), null, 'a 256-byte agent is accepted');
select is(pg_temp.error_of(format('select * from actae.list_channels(p_agent => %L)',
    repeat('a', 257))) -> 'detail' ->> 'argument', 'agent', 'a 257-byte agent is AC400');
select is(pg_temp.error_of(format(
    'select * from actae.list_channels(p_parent_channel_id => %L)', repeat('p', 257)))
    -> 'detail' ->> 'argument', 'parent_channel_id', 'a 257-byte parent_channel_id is AC400');
select is(pg_temp.error_of(format(
    'select * from actae.list_channels(p_before_created_at => now(), p_before_channel_id => %L)',
    repeat('b', 257))) -> 'detail' ->> 'argument', 'before_channel_id',
    'a 257-byte before_channel_id is AC400');

select * from finish();
rollback;
