-- Only a superuser or the owner of actae._now() (actae_owner) can move the database clock.
-- actae._set_test_clock redefines actae._now() with the caller's rights, so even a role
-- that was granted EXECUTE on it cannot use it; agents, auditors and operators can neither
-- call it, nor redefine actae._now() themselves, nor read or change the clock any other
-- way. After all their attempts the clock is still the real one.
begin;
\ir ../helpers.psql
select plan(12);

select is(
    (select p.proowner::regrole::text from pg_proc as p where p.oid = 'actae._now()'::regprocedure),
    'actae_owner', 'actae._now() is owned by actae_owner'
);
select is(
    (select p.prosecdef from pg_proc as p
     where p.oid = 'actae._set_test_clock(interval)'::regprocedure),
    false, 'actae._set_test_clock runs with its caller''s rights (not SECURITY DEFINER)'
);
select is(
    (select string_agg(r.rolname, ', ') from pg_roles as r
     where r.rolname like 'actae\_%' and r.rolname <> 'actae_owner'
       and has_function_privilege(r.oid, 'actae._set_test_clock(interval)', 'execute')),
    null, 'no Actae role but its owner may execute actae._set_test_clock'
);

set local role actae_agent;
select throws_ok($$select actae._set_test_clock(interval '1 day')$$, '42501', null,
    'an agent cannot call actae._set_test_clock');
select throws_ok(
    $$create or replace function actae._now() returns timestamptz language sql volatile
      as 'select pg_catalog.clock_timestamp() + interval ''1 day'''$$,
    '42501', null, 'an agent cannot redefine actae._now()');
select throws_ok($$select actae._now()$$, '42501', null,
    'an agent cannot call actae._now() directly either');
reset role;

set local role actae_operator;
select throws_ok($$select actae._set_test_clock(interval '1 day')$$, '42501', null,
    'an operator cannot call actae._set_test_clock');
select throws_ok(
    $$create or replace function actae._now() returns timestamptz language sql volatile
      as 'select pg_catalog.clock_timestamp() + interval ''1 day'''$$,
    '42501', null, 'an operator cannot redefine actae._now()');
reset role;

set local role actae_auditor;
select throws_ok($$select actae._set_test_clock(interval '1 day')$$, '42501', null,
    'an auditor cannot call actae._set_test_clock');
reset role;

-- Even granted EXECUTE, an agent cannot move time: redefining actae._now() needs ownership.
grant execute on function actae._set_test_clock(interval) to actae_agent;
set local role actae_agent;
select throws_ok($$select actae._set_test_clock(interval '1 day')$$, '42501', null,
    'an agent granted EXECUTE on actae._set_test_clock still cannot move the clock');
reset role;

select ok(
    abs(extract(epoch from actae._now() - clock_timestamp())) < 1,
    'after every attempt actae._now() is still the real clock'
);
select ok(
    (select lease_expires_at - clock_timestamp()
     from actae.claim_execution('tap-no-travel', 'k', 't', '{}'))
    between interval '59 seconds' and interval '61 seconds',
    'and a claim''s lease is measured on it'
);

select * from finish();
rollback;
