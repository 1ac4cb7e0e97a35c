-- actae._uuid7() returns a UUID with the version-7 layout: the first 48 bits are the Unix
-- time in milliseconds of the call, the version nibble is 7, the variant bits are 10, and
-- the rest is random (a thousand calls give a thousand different ids).
begin;
\ir ../helpers.psql
select plan(6);

create temp table ids as
select actae._uuid7() as id, clock_timestamp() as at from generate_series(1, 1000);

select matches(
    (select id::text from ids limit 1),
    '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$',
    'the text form is a UUID with version 7 and variant 10'
);
select is(
    (select count(*) from ids where substr(id::text, 15, 1) <> '7'),
    0::bigint, 'every id has version nibble 7'
);
select is(
    (select count(*) from ids where substr(id::text, 20, 1) not in ('8', '9', 'a', 'b')),
    0::bigint, 'every id has the variant bits 10'
);
select is((select count(distinct id) from ids), 1000::bigint, 'a thousand calls, a thousand ids');
-- The first 12 hex digits are the milliseconds since the epoch, at most a few ms before the
-- clock_timestamp() read right after the call.
select is(
    (select count(*) from ids
     where ('x' || lpad(replace(left(id::text, 13), '-', ''), 16, '0'))::bit(64)::bigint
         not between floor(extract(epoch from at) * 1000)::bigint - 5
             and floor(extract(epoch from at) * 1000)::bigint),
    0::bigint, 'the first 48 bits are the Unix time of the call in milliseconds'
);
select is(
    (select count(*) from ids where id::text = '00000000-0000-7000-8000-000000000000'),
    0::bigint, 'the random part is not zero'
);

select * from finish();
rollback;
