-- 0004_auditor_without_tokens: readers never see a live claim_token.
--
-- A claim_token is the proof of ownership that heartbeat, complete and fail check. A role
-- that can read it can act as any worker, so actae_auditor (and actae_operator, a member)
-- reads every column of actae.executions except claim_token. The API functions never return
-- it either, except to the owner. A column added to actae.executions later needs its own
-- grant to actae_auditor in the migration that adds it.
do $grant$
declare
    v_columns text;
begin
    select string_agg(quote_ident(a.attname), ', ' order by a.attnum) into v_columns
    from pg_catalog.pg_attribute as a
    where a.attrelid = 'actae.executions'::regclass
        and a.attnum > 0 and not a.attisdropped and a.attname <> 'claim_token';
    revoke select on actae.executions from actae_auditor;
    execute format('grant select (%s) on actae.executions to actae_auditor', v_columns);
end;
$grant$;
