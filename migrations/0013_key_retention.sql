-- 0013_key_retention: a finished key keeps at least the lifetime it finished under.
--
-- purge deleted a channel's finished keys once finished_at + the channel's *current* key_ttl
-- had passed, so shortening key_ttl (set_key_ttl to 1 second) made a completed charge
-- purgeable at once, and the next claim of its key ran the charge again. retain_until is
-- stamped by set_key_ttl, before it shortens (or first sets) a lifetime, on the finished keys
-- that lived under the one being replaced: finished_at + that lifetime ('infinity' when
-- there was none). purge deletes a key only when both it and finished_at + key_ttl have
-- passed: a later change can lengthen a key's life, never shorten it. Null: the key finished
-- under the current lifetime (the hot path writes nothing new).
alter table actae.executions add column retain_until timestamptz;

-- actae_auditor reads every column but claim_token (0004): this one too.
grant select (retain_until) on actae.executions to actae_auditor;
