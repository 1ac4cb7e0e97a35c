-- Actae replay: claim of a key completed earlier returns outcome replayed and its result.
\set k random(1, 200)
select outcome, result
from actae.claim_execution('r' || :client_id, 'k' || :k, 'search', '{"q": "actae"}');
