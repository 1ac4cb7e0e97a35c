-- Actae's claim + complete driven by pgbench: the same two commits through the functions.
\set k random(1, 9000000000000000000)
select execution_id, claim_token
from actae.claim_execution('c' || :client_id, 'k' || :k, 'search', '{"q": "actae"}') \gset
select status from actae.complete_execution(:execution_id, :claim_token, '{"ok": true}');
