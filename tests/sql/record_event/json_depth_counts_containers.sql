-- JSON nesting is limited to 512 levels of arrays and objects (actae._check_json, for
-- every JSON argument): 512 nested objects or arrays pass, with a value inside the
-- innermost or not; a 513th level of arrays or objects is AC400 naming the argument.
begin;
\ir ../helpers.psql
select plan(4);

select lives_ok(format($$select actae.record_event('tap-depth', 't', %L)$$,
        repeat('{"a": ', 512) || '1' || repeat('}', 512)),
    '512 nested objects holding a value pass');
select lives_ok(format($$select actae.record_event('tap-depth', 't', %L)$$,
        repeat('[', 512) || '"x"' || repeat(']', 512)),
    '512 nested arrays holding a value pass');
select is(pg_temp.error_of(format($$select actae.record_event('tap-depth', 't', %L)$$,
        repeat('{"a": ', 513) || '1' || repeat('}', 513))) ->> 'message',
    'payload must be JSON nested at most 512 levels deep', 'a 513th object is refused');
select is(pg_temp.error_of(format($$select actae.record_event('tap-depth', 't', %L)$$,
        repeat('[', 513) || repeat(']', 513))) ->> 'sqlstate', 'AC400',
    'a 513th array is refused');

select * from finish();
rollback;
