-- 0012_default_privileges: no function created later in the database by actae_owner or by the
-- role running this migration is executable by PUBLIC unless granted explicitly.
--
-- 0001's `alter default privileges in schema actae revoke execute on functions from public`
-- changes nothing: per-schema defaults can only add to the global ones, and the global default
-- grants EXECUTE to PUBLIC. Only the global form (FOR ROLE, without IN SCHEMA) removes it. It
-- applies to every function those two roles create in this database afterwards, in any schema;
-- sql/90_grants.sql still grants the API to actae_agent/actae_auditor/actae_operator by name.
alter default privileges for role actae_owner revoke execute on functions from public;
alter default privileges revoke execute on functions from public;
