-- Settings every SECURITY DEFINER function in schema actae runs with, whatever its caller's
-- session says. Re-applied on each migrate, after the functions are (re)created; the one
-- place these values are written.
--
-- lock_timeout = 5s: a function waits at most 5 seconds for a lock, then fails with
-- SQLSTATE 55P03 (lock_not_available, "canceling statement due to lock timeout") instead of
-- hanging: a caller that keeps a transaction open after an API call (holding a channel or
-- execution row) can delay other callers by that much, not freeze them. A retry is safe
-- (every Actae write is idempotent or fenced). On Citus the statements a function sends to
-- the workers run in connections of their own, which take the same value from actae_owner's
-- login settings (sql/citus/owner_login.psql).
--
-- On Citus only (the extension installed when this runs; docs/SCALING.md installs it before
-- the first migrate, and sql/citus/distribute.sql refuses a database migrated without it):
-- DateStyle ISO, MDY, IntervalStyle postgres and standard_conforming_strings on. The
-- coordinator sends the values a function computed or was given (a lease's expiry, a
-- payload) to the workers as text written in the session's styles, and the workers read
-- them in their own: a caller with DateStyle 'SQL, DMY' or 'German' had 7 December stored
-- as 12 July (a fresh lease already lapsed, so another caller reclaimed it) and every write
-- from the 13th of a month on refused; with standard_conforming_strings off every
-- backslash of a payload, a state or metadata was stored twice. Without Citus no value
-- leaves a function as text, so a single server does not pay for more settings per call.
do $settings$
declare
    v_function regprocedure;
    v_citus boolean := exists (
        select from pg_catalog.pg_extension as x where x.extname = 'citus'
    );
begin
    for v_function in
        select p.oid::regprocedure
        from pg_catalog.pg_proc as p
        where p.pronamespace = 'actae'::regnamespace and p.prosecdef
    loop
        execute pg_catalog.format('alter function %s set lock_timeout = %L', v_function, '5s');
        if v_citus then
            execute pg_catalog.format('alter function %s set datestyle = %L', v_function,
                'ISO, MDY');
            execute pg_catalog.format('alter function %s set intervalstyle = %L', v_function,
                'postgres');
            execute pg_catalog.format('alter function %s set standard_conforming_strings = on',
                v_function);
        end if;
    end loop;
end;
$settings$;
