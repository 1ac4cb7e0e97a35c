-- Steps of agent runs, as an agent writes them: each run is a new channel
-- ('run-' || tag || '-' || client || '-' || run) whose steps are the keys 'step-1' ..
-- 'step-20', each claimed and completed (two commits per step). pgbench keeps a client's
-- variables from one transaction to the next: -D step=0 -D run=0 -D tag=<a number unique per
-- measurement> start them.
\set step :step + 1
\if :step > 20
\set step 1
\endif
\if :step = 1
\set run :run + 1
\endif
select execution_id, claim_token
from actae.claim_execution(
    'run-' || :tag || '-' || :client_id || '-' || :run, 'step-' || :step, 'search',
    '{"q": "actae"}'
) \gset
select status from actae.complete_execution(:execution_id, :claim_token, '{"ok": true}');
