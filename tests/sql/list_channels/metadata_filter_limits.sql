-- list_channels' metadata filter has the limits of metadata itself (64 KiB of JSON, nested
-- at most 512 levels): a filter no channel's metadata could match is AC400 naming
-- metadata, not an empty page.
begin;
\ir ../helpers.psql
select plan(4);

select is(pg_temp.error_of(format('select * from actae.list_channels(p_metadata => %L)',
    jsonb_build_object('k', repeat('m', 60000)))), null, 'a 60 KB filter is accepted');
select is(pg_temp.error_of(format('select * from actae.list_channels(p_metadata => %L)',
    jsonb_build_object('k', repeat(md5('x'), 2100)))) -> 'detail' ->> 'argument', 'metadata',
    'a filter over 64 KiB is AC400 naming metadata');
select is(pg_temp.error_of(format('select * from actae.list_channels(p_metadata => %L)',
    '{"k": ' || repeat('[', 510) || repeat(']', 510) || '}')), null,
    'a filter 511 levels deep is accepted');
select is(pg_temp.error_of(format('select * from actae.list_channels(p_metadata => %L)',
    '{"k": ' || repeat('[', 600) || repeat(']', 600) || '}')) -> 'detail' ->> 'argument',
    'metadata', 'a filter 601 levels deep is AC400 naming metadata');

select * from finish();
rollback;
