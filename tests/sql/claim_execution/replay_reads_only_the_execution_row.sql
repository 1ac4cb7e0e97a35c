-- claim_execution, issue 18 item 1: the replay of a completed key reads its execution row
-- and nothing else. Proof: with the channel row gone (deleted here, inside the test), the
-- completed key still replays, while a new key of the same channel id needs the channel
-- (and creates it afresh).
begin;
\ir ../helpers.psql
select plan(3);

select actae.complete_execution(e.execution_id, e.claim_token, '{"r": 1}')
from actae.claim_execution('replay-probe', 'k', 't', '{"a": 1}') as e;
delete from actae.channels where channel_id = 'replay-probe';

select is(
    (select outcome || ' ' || result::text
     from actae.claim_execution('replay-probe', 'k', 't', '{"a": 1}')),
    'replayed {"r": 1}', 'a completed key replays without its channel row');
select is((select count(*) from actae.channels where channel_id = 'replay-probe'), 0::bigint,
    'the replay read no channel and created none');
select is((select outcome from actae.claim_execution('replay-probe', 'k2', 't', '{}')),
    'claimed', 'a new key reads (here: creates) the channel');

select * from finish();
rollback;
