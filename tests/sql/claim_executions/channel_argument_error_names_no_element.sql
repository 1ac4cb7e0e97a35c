-- A missing, empty or over-long channel_id of a batch is the channel's error: AC400 naming
-- channel_id, without an element (the single call would otherwise name element 1), for
-- claim_executions and for a channel_id given to complete_executions (null there means
-- "look each element up by id").
begin;
\ir ../helpers.psql
select plan(4);

select is(pg_temp.error_of($$select * from actae.claim_executions(null, array['k1', 'k1'],
        array['t', 't'], array['{}', '{}']::jsonb[])$$) ->> 'message',
    'channel_id must be 1 to 256 bytes of text', 'null channel: no element in the message');
select ok(not (pg_temp.error_of($$select * from actae.claim_executions('', array['k1'],
        array['t'], array['{}']::jsonb[])$$) -> 'detail' ? 'element'),
    'empty channel: no element in DETAIL');
select is(pg_temp.error_of(format($$select * from actae.claim_executions(%L, array['k1'],
        array['t'], array['{}']::jsonb[])$$, repeat('x', 257))) ->> 'message',
    'channel_id must be 1 to 256 bytes of text', 'over-long channel: no element');
select is(pg_temp.error_of($$select * from actae.complete_executions(
        array[gen_random_uuid()], array[gen_random_uuid()], null, '')$$) ->> 'message',
    'channel_id must be 1 to 256 bytes of text', 'complete_executions: no element either');

select * from finish();
rollback;
