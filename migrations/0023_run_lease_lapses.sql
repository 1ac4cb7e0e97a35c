-- 0023_run_lease_lapses: a run whose worker is lost every time ends as failed.
--
-- A lease lapse (the worker was SIGKILLed, ran out of memory, or stalled past its lease) is
-- not a failure: fail_run never ran, failures did not grow, and claim_run reclaimed the run
-- as often as it lapsed. A run whose agent kills its worker every time (a segfault, an
-- allocation that always runs out of memory) was therefore reclaimed forever, taking the
-- worker and every other run on it down each time, and max_attempts never applied.
--
-- lapses counts the run's consecutive lease lapses that made no progress: claim_run sets it
-- when it reclaims a lapsed run (1 when a tool call of the channel completed during the
-- lapsed attempt, else one more than before), and every
-- orderly transition (complete_run, fail_run, a sleep or wait that parks, an end as
-- cancelled) sets it back to 0. When a reclaim would make it reach 10, claim_run counts one
-- failure of the run instead (a retry after the backoff while attempts are left, else
-- failed) and claims the next due run (sql/40_runs.sql; docs/runs.md says why 10 and why
-- deploys do not reach it).
--
-- The column is not part of actae.run_row (the API's view of a run is unchanged). A new
-- column with a constant default is a catalog change only: no table rewrite, on one node
-- or on Citus (where ALTER TABLE is propagated to the shards). Re-runnable.
alter table actae.runs add column if not exists lapses integer not null default 0;

-- actae_auditor reads every column but claim_token (0007): this one too.
grant select (lapses) on actae.runs to actae_auditor;
