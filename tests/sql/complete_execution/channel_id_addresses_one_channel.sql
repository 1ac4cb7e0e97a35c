-- The optional last argument channel_id: the right channel completes as without it; another
-- channel is AC404 and writes nothing; an empty or over-long one is AC400 naming channel_id.
begin;
\ir ../helpers.psql
select plan(5);

create temp table claim as select * from actae.claim_execution('tap-cch', 'k', 't', '{}');
select actae.claim_execution('tap-cch-other', 'k', 't', '{}');
create temp table before as select pg_temp.ledger_digest() as digest;

select throws_ok(
    $$select actae.complete_execution(execution_id, claim_token, '1', 'tap-cch-other')
    from claim$$,
    'AC404', null, 'an execution of another channel is AC404');
select throws_ok(
    $$select actae.complete_execution(execution_id, claim_token, '1', '') from claim$$,
    'AC400', 'channel_id must be 1 to 256 bytes of text', 'an empty channel_id is AC400');
select throws_ok(
    $$select actae.complete_execution(execution_id, claim_token, '1', repeat('c', 257))
    from claim$$,
    'AC400', null, 'a channel_id of 257 bytes is AC400');
select is(pg_temp.ledger_digest(), digest, 'the failed calls wrote nothing') from before;
select is(
    (select status from actae.complete_execution(c.execution_id, c.claim_token, '1', 'tap-cch')),
    'completed', 'the execution''s own channel completes it'
) from claim as c;

select * from finish();
rollback;
