-- The optional last argument channel_id: the right channel extends the lease as without it;
-- another channel is AC404; an empty one is AC400 naming channel_id.
begin;
\ir ../helpers.psql
select plan(3);

create temp table claim as select * from actae.claim_execution('tap-hch', 'k', 't', '{}');

select throws_ok(
    $$select actae.heartbeat_execution(execution_id, claim_token, null, 'tap-hch-other')
    from claim$$,
    'AC404', null, 'an execution of another channel is AC404');
select throws_ok(
    $$select actae.heartbeat_execution(execution_id, claim_token, null, '') from claim$$,
    'AC400', 'channel_id must be 1 to 256 bytes of text', 'an empty channel_id is AC400');
select is(
    (select status from actae.heartbeat_execution(c.execution_id, c.claim_token, 30, 'tap-hch')),
    'in_progress', 'the execution''s own channel extends it'
) from claim as c;

select * from finish();
rollback;
