-- A live policy lets a fork re-execute its tool under an inherited key, never take over a
-- key inherited for another tool: claiming it for another tool is AC409 in a fork as in the
-- source, whatever the policies say, and writes nothing (the inherited result stays what
-- get_execution shows). The same tool under a live policy is claimed afresh, its params
-- free to change (the fork re-executes it).
begin;
\ir ../helpers.psql
select plan(9);

select pg_temp.completed('tap-flk', 'k', 'search', '"r"');
select actae.record_event('tap-flk', 'after', '{}');
select actae.fork_channel('tap-flk', 1, 'tap-flk-charge', null, '{"charge": "live"}');
select actae.fork_channel('tap-flk', 1, 'tap-flk-both', null,
    '{"charge": "live", "search": "live"}');

select pg_temp.ledger_digest() as before \gset
select is(pg_temp.error_of(
    $$select actae.claim_execution('tap-flk-charge', 'k', 'charge', '{"q": 1}')$$)
    ->> 'sqlstate', 'AC409', 'a live tool cannot claim a key inherited for another tool');
select is(pg_temp.error_of(
    $$select actae.claim_execution('tap-flk-both', 'k', 'charge', '{"q": 1}')$$)
    ->> 'sqlstate', 'AC409', 'nor when the inherited tool is live as well');
select is(pg_temp.error_of(
    $$select actae.claim_executions('tap-flk-charge', array['k'], array['charge'],
        array['{"q": 1}'::jsonb])$$) -> 'detail' ->> 'element', '1',
    'the batch refuses the element the same way');
select is(pg_temp.error_of(
    $$select actae.claim_execution('tap-flk', 'k', 'charge', '{"q": 1}')$$)
    ->> 'sqlstate', 'AC409', 'as the source does');
select is(pg_temp.ledger_digest(), :'before', 'the refused claims wrote nothing');
select is(
    (select row(channel_id, tool_name, status, result)::text
     from actae.get_execution('tap-flk-charge', 'k')),
    '(tap-flk,search,completed,"""r""")', 'the fork still sees the inherited search');
select is(
    (select outcome from actae.claim_execution('tap-flk-charge', 'k', 'search', '{}')),
    'replayed', 'and replays it for its own tool');
select is(
    (select row(outcome, channel_id)::text
     from actae.claim_execution('tap-flk-both', 'k', 'search', '{"q": 2}')),
    '(claimed,tap-flk-both)', 'a live tool re-executes its inherited key, with other params');
select is(
    (select outcome from actae.claim_execution('tap-flk-charge', 'k2', 'charge', '{}')),
    'claimed', 'a new key of a live tool is claimed as before');

select * from finish();
rollback;
