-- Every EXECUTE that PUBLIC, actae_agent, actae_auditor or actae_operator holds on a
-- function of schema actae is actae_owner's grant without grant option (the relations'
-- entries: relation_privileges_are_exactly_the_shipped_ones.sql). So none of the roles can
-- hand what it holds to another role: an agent granting EXECUTE on claim_execution, an
-- auditor granting SELECT on channels, an operator granting EXECUTE on purge grant nothing.
begin;
\ir ../helpers.psql
select plan(4);

select is(
    (select string_agg(format('%s %s by %s%s', p.oid::regprocedure,
        coalesce(nullif(a.grantee, 0)::regrole::text, 'PUBLIC'), a.grantor::regrole,
        case when a.is_grantable then ' with grant option' end), ', ')
     from pg_proc as p
     cross join lateral aclexplode(p.proacl) as a
     where p.pronamespace = 'actae'::regnamespace
       and a.grantee in (0, 'actae_agent'::regrole, 'actae_auditor'::regrole,
           'actae_operator'::regrole)
       and (a.is_grantable or a.grantor <> 'actae_owner'::regrole)),
    null, 'every EXECUTE on an actae function is actae_owner''s, without grant option');

create role tap_pass nologin;
grant usage on schema actae to tap_pass;
create temp table attempt (who text, statement text);
insert into attempt values
    ('actae_agent', 'grant execute on function actae.claim_execution(text, text, text,'
        ' jsonb, text[], integer) to tap_pass'),
    ('actae_auditor', 'grant select on actae.channels to tap_pass'),
    ('actae_operator', 'grant execute on function actae.purge(interval, integer) to tap_pass');
grant select on attempt to public;

-- Each attempt as its role; a refusal (42501) or a warning that nothing was granted are
-- both fine, what counts is what tap_pass holds afterwards.
set local client_min_messages = error;
set local role actae_agent;
do $$ begin execute (select statement from pg_temp.attempt where who = 'actae_agent');
exception when insufficient_privilege then null; end $$;
reset role;
set local role actae_auditor;
do $$ begin execute (select statement from pg_temp.attempt where who = 'actae_auditor');
exception when insufficient_privilege then null; end $$;
reset role;
set local role actae_operator;
do $$ begin execute (select statement from pg_temp.attempt where who = 'actae_operator');
exception when insufficient_privilege then null; end $$;
reset role;
reset client_min_messages;

select is(has_function_privilege('tap_pass',
    'actae.claim_execution(text, text, text, jsonb, text[], integer)', 'execute'), false,
    'the agent cannot pass on EXECUTE of an API function');
select is(has_table_privilege('tap_pass', 'actae.channels', 'select'), false,
    'the auditor cannot pass on SELECT of a table');
select is(has_function_privilege('tap_pass', 'actae.purge(interval, integer)', 'execute'),
    false, 'the operator cannot pass on EXECUTE of an operator function');

select * from finish();
rollback;
