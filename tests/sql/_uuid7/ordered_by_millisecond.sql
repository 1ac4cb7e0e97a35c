-- Ids made in later milliseconds sort after earlier ones within a session (uuid order is
-- byte order, and the time comes first), so new execution ids append to the right of the
-- execution_id index; claim_execution gives new executions such ids, claim tokens stay
-- random (version 4).
begin;
\ir ../helpers.psql
select plan(4);

create temp table ids (n integer, id uuid);
do $$
begin
    for i in 1 .. 20 loop
        insert into ids values (i, actae._uuid7());
        perform pg_sleep(0.002);
    end loop;
end;
$$;

select is(
    (select count(*) from ids as a join ids as b on b.n = a.n + 1 where b.id <= a.id),
    0::bigint, 'each id sorts after the one made 2 ms earlier'
);
select is(
    (select array_agg(n order by id) from ids),
    (select array_agg(n order by n) from ids),
    'ordering 20 ids by value orders them by creation'
);

create temp table c as
select * from actae.claim_execution('tap-uuid7', 'k', 't', '{}');
select is(
    (select substr(execution_id::text, 15, 1) from c), '7',
    'claim_execution gives a new execution a version-7 id'
);
select is(
    (select substr(claim_token::text, 15, 1) from c), '4',
    'the claim token stays random (version 4)'
);

select * from finish();
rollback;
