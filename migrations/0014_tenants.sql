-- 0014_tenants: every channel belongs to a tenant; events and executions record their writer.
--
-- A tenant is a role granted actae_agent: a NOLOGIN role whose logins are granted it, or a
-- login granted actae_agent directly (its own tenant). channels.tenant is the owning
-- tenant's oid, set when the channel is created (actae._caller_tenant()); every agent-facing
-- function acts only on channels whose tenant the caller is a member of (docs/tenants.md).
-- executions.tenant is the channel's tenant, copied when the row is inserted, so a replay
-- decides ownership from the execution row alone (one index probe).
--
-- Existing rows belong to actae_agent itself: every agent is a member of it, so channels
-- written before this migration stay shared by all agents exactly as before (nothing an
-- agent could do yesterday fails after the upgrade). An operator moves them to a tenant
-- with actae.assign_tenant / `actae tenant assign` (docs/tenants.md).
--
-- Every function sets tenant explicitly; the column default (the inserting login itself) only
-- serves rows inserted by hand (fixtures, bulk loads by an administrator), and fails closed:
-- such a row belongs to that login alone, never to everyone.
--
-- written_by is the session_user (the login, not the definer) that wrote the row: the
-- event's appender, the execution's last claimer, completer or failer. 4 bytes; null on
-- rows written before this migration (unknown). Read it as written_by::regrole.
alter table actae.channels
add column tenant oid not null default pg_catalog.to_regrole('actae_agent')::oid;
alter table actae.channels
alter column tenant set default pg_catalog.quote_ident(session_user)::regrole::oid;

alter table actae.executions
add column tenant oid not null default pg_catalog.to_regrole('actae_agent')::oid;
alter table actae.executions
alter column tenant set default pg_catalog.quote_ident(session_user)::regrole::oid;

alter table actae.executions add column written_by oid;
alter table actae.executions
alter column written_by set default pg_catalog.quote_ident(session_user)::regrole::oid;

alter table actae.events add column written_by oid;
alter table actae.events
alter column written_by set default pg_catalog.quote_ident(session_user)::regrole::oid;

-- No index on tenant: every check reads a row found by its key (pg_has_role on its tenant),
-- and the listings filter rows they read anyway.

-- actae_auditor reads every column but claim_token (0004): these too.
grant select (tenant, written_by) on actae.executions to actae_auditor;
