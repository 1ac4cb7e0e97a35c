-- The floor of a SPEC-shaped claim + complete (floors.sql): the limit's two commits through
-- the thinnest two functions (each SECURITY DEFINER, returning the execution row).
\set k random(1, 9000000000000000000)
select execution_id, claim_token
from bench.claim_floor('c' || :client_id, 'k' || :k, 'search', '{"q": "actae"}') \gset
select status
from bench.complete_floor(:execution_id, :claim_token, '{"ok": true}', 'c' || :client_id);
