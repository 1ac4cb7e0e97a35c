-- actae._check_json measures a value passed from a compressed column by its text, not by
-- its stored (compressed) size, and walks a compressed value's nesting whatever its stored
-- size: a compressed 1.1 MB result is refused as 1.1 MB, a compressed 513-level array is
-- refused as too deep, and a compressed value within both limits passes.
begin;
\ir ../helpers.psql
select plan(6);

create temp table v (name text, j jsonb);
insert into v values
    ('big', jsonb_build_object('s', repeat('a', 1100000))),
    ('deep', (repeat('[', 513) || repeat(']', 513))::jsonb),
    ('fine', jsonb_build_object('s', repeat('a', 100000)));
select is(
    (select count(*) from v where pg_column_compression(j) is not null), 3::bigint,
    'the three values are stored compressed'
);

select is(
    pg_temp.error_of($$select actae._check_json(j, 'result') from v where name = 'big'$$)
        ->> 'sqlstate', 'AC400', 'a compressed value larger than the limit is refused'
);
select is(
    (pg_temp.error_of($$select actae._check_json(j, 'result') from v where name = 'big'$$)
        -> 'detail' ->> 'bytes')::bigint,
    (select octet_length(j::text)::bigint from v where name = 'big'),
    'its size is the size of its text'
);
select is(
    pg_temp.error_of($$select actae._check_json(j, 'result') from v where name = 'deep'$$)
        ->> 'message', 'result must be JSON nested at most 512 levels deep',
    'a compressed value nested 513 levels deep is refused'
);
select lives_ok($$select actae._check_json(j, 'result') from v where name = 'fine'$$,
    'a compressed value within both limits passes');
select lives_ok(
    $$select actae._check_json((repeat('[', 512) || repeat(']', 512))::jsonb, 'result')$$,
    'an uncompressed value nested 512 levels deep passes');

select * from finish();
rollback;
