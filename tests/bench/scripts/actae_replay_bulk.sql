-- Actae replay of a random key among the bulk-loaded executions (scale benchmark).
\set i random(1, :rows)
select outcome, result
from actae.claim_execution('bulk-' || (:i / 100), 'k' || :i, 'search', '{"q": "actae"}');
