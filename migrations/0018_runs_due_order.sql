-- 0018_runs_due_order: the due index of actae.runs holds (queue, due_at, channel_id), the
-- order claim_run reads due runs in, instead of (queue, due_at).
--
-- claim_run reads the oldest due runs of a queue `order by due_at, channel_id limit 8`.
-- With (queue, due_at) alone, every plan needed a sort: before the first ANALYZE of
-- actae.runs (a new queue, or one that grew fast since), the planner chose a bitmap scan of
-- every due run of the queue and a top-N sort, so each claim read the whole backlog (about
-- 1.8 ms of backend CPU per claim with 6 000 runs queued). With channel_id in the index, an
-- index scan returns the runs in the claim's order and stops after the first page, and
-- claim_run runs with bitmap scans off, so that scan is its plan with or without statistics.
--
-- Building the index blocks writes to actae.runs for the time it takes. On a large table
-- an operator builds it first, without blocking, and this migration then only drops the old
-- index:
--   create index concurrently runs_due_order_idx
--       on actae.runs (queue, due_at, channel_id) where due_at is not null;
create index if not exists runs_due_order_idx
on actae.runs (queue, due_at, channel_id) where due_at is not null;

drop index if exists actae.runs_due_idx;
