-- The claim token is returned only by the outcomes that make the caller the owner
-- (claimed, reclaimed); in_progress, replayed and failed never reveal it.
begin;
\ir ../helpers.psql
select plan(6);

create temp table answers (outcome text, claim_token uuid);
insert into answers select outcome, claim_token
from actae.claim_execution('tap-token', 'a', 't', '{}');
insert into answers select outcome, claim_token
from actae.claim_execution('tap-token', 'a', 't', '{}');
update actae.executions set lease_expires_at = clock_timestamp() - interval '1 second'
where channel_id = 'tap-token' and key_name = 'a';
insert into answers select outcome, claim_token
from actae.claim_execution('tap-token', 'a', 't', '{}');
select actae.complete_execution(execution_id, claim_token, '1')
from actae.executions where channel_id = 'tap-token' and key_name = 'a';
insert into answers select outcome, claim_token
from actae.claim_execution('tap-token', 'a', 't', '{}');
select actae.fail_execution(execution_id, 'no', claim_token, false)
from actae.claim_execution('tap-token', 'b', 't', '{}');
insert into answers select outcome, claim_token
from actae.claim_execution('tap-token', 'b', 't', '{}');

select results_eq(
    $$select outcome from answers order by outcome$$,
    $$values ('claimed'::text), ('failed'), ('in_progress'), ('reclaimed'), ('replayed')$$,
    'one answer of each outcome was collected'
);
select isnt((select claim_token from answers where outcome = 'claimed'), null,
    'claimed returns the token');
select isnt((select claim_token from answers where outcome = 'reclaimed'), null,
    'reclaimed returns the token');
select is((select claim_token from answers where outcome = 'in_progress'), null,
    'in_progress hides the token');
select is((select claim_token from answers where outcome = 'replayed'), null,
    'replayed hides the token');
select is((select claim_token from answers where outcome = 'failed'), null,
    'failed hides the token');

select * from finish();
rollback;
