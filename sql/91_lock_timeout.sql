-- Every SECURITY DEFINER function in schema actae waits at most 5 seconds for a lock, then
-- fails with SQLSTATE 55P03 (lock_not_available, "canceling statement due to lock timeout")
-- instead of hanging: a caller that keeps a transaction open after an API call (holding a
-- channel or execution row) can delay other callers by that much, not freeze them. A retry
-- is safe (every Actae write is idempotent or fenced). Re-applied on each migrate, after the
-- functions are (re)created; the one place the value is written.
do $lock_timeout$
declare
    v_function regprocedure;
begin
    for v_function in
        select p.oid::regprocedure
        from pg_catalog.pg_proc as p
        where p.pronamespace = 'actae'::regnamespace and p.prosecdef
    loop
        execute pg_catalog.format('alter function %s set lock_timeout = %L', v_function, '5s');
    end loop;
end;
$lock_timeout$;
