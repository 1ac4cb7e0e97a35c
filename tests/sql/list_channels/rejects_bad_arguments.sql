-- list_channels: bad filters and page arguments are AC400 naming the argument; nothing
-- is written.
begin;
\ir ../helpers.psql
select plan(7);

create temp table digest as select pg_temp.ledger_digest() as d;
select is(pg_temp.error_of($$select * from actae.list_channels(p_metadata => '[1]')$$)
    -> 'detail' ->> 'argument', 'metadata', 'metadata must be an object');
select is(pg_temp.error_of($$select * from actae.list_channels(p_status => 'sleepy')$$)
    -> 'detail' ->> 'argument', 'status', 'an unknown run status');
select is(pg_temp.error_of($$select * from actae.list_channels(p_parent_channel_id => '')$$)
    -> 'detail' ->> 'argument', 'parent_channel_id', 'an empty parent');
select is(pg_temp.error_of($$select * from actae.list_channels(p_before_channel_id => 'x')$$)
    -> 'detail' ->> 'argument', 'before_channel_id', 'half a keyset');
select is(pg_temp.error_of($$select * from actae.list_channels(p_max_rows => 0)$$)
    -> 'detail' ->> 'argument', 'max_rows', 'max_rows 0');
select is(pg_temp.error_of($$select * from actae.list_channels(p_max_rows => 1001)$$)
    ->> 'sqlstate', 'AC400', 'max_rows above 1000');
select is(pg_temp.ledger_digest(), (select d from digest), 'nothing written');

select * from finish();
rollback;
