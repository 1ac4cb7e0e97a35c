-- An empty dedup field name is refused as such even when params has the empty key (it is
-- never a field), and the DETAIL of dedup fields missing from params lists at most five of
-- them, each cut to 64 characters, while missing_count counts them all.
begin;
\ir ../helpers.psql
select plan(5);

select is(
    pg_temp.error_of($$select * from actae.claim_execution('tap-ddr', 'k', 't',
        '{"": 1, "a": 2}', array[''])$$) ->> 'message',
    'dedup_fields must be null or a non-empty list of field names',
    'an empty name is refused even when params has the empty key'
);
select is(
    pg_temp.error_of($$select * from actae.claim_execution('tap-ddr', 'k', 't',
        '{"": 1, "a": 2}', array['a', ''])$$) ->> 'sqlstate', 'AC400',
    'an empty name beside a present field is refused too'
);

create temp table refused as
select pg_temp.error_of(format(
    $$select * from actae.claim_execution('tap-ddr', 'k', 't', '{"a": 1}', %L)$$,
    array(select i || repeat('x', 99) from generate_series(1, 7) as i))) -> 'detail' as d;
select is((select jsonb_array_length(d -> 'missing') from refused), 5,
    'at most five missing names are listed');
select is(
    (select array_agg(distinct length(m)) from refused, jsonb_array_elements_text(d -> 'missing')
        as m),
    array[64], 'each listed name is cut to 64 characters');
select is((select (d ->> 'missing_count')::int from refused), 7,
    'missing_count counts every missing name');

select * from finish();
rollback;
