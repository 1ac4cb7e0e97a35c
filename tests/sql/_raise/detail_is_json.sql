-- actae._raise raises the SQLSTATE and the message it is given, with DETAIL the JSON text of
-- its detail: the empty object when the detail is left out or null (a null detail never
-- turns an Actae error into a failed RAISE with another SQLSTATE).
begin;
\ir ../helpers.psql
select plan(3);

select is(
    pg_temp.error_of($$select actae._raise('AC409', 'it is one sentence', '{"a": [1]}')$$),
    '{"sqlstate": "AC409", "message": "it is one sentence", "detail": {"a": [1]}}'::jsonb,
    'the code, the message and the JSON detail as given'
);
select is(
    pg_temp.error_of($$select actae._raise('AC404', 'it is missing')$$),
    '{"sqlstate": "AC404", "message": "it is missing", "detail": {}}'::jsonb,
    'a detail left out is the empty object'
);
select is(
    pg_temp.error_of($$select actae._raise('AC412', 'it is stale', null)$$),
    '{"sqlstate": "AC412", "message": "it is stale", "detail": {}}'::jsonb,
    'a null detail is the empty object, and the code is still the given one'
);

select * from finish();
rollback;
