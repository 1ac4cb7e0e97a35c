-- The keyset cursor's channel id is checked as the other channel ids are: empty or longer
-- than a channel id can be is AC400 naming before_channel_id.
begin;
\ir ../helpers.psql
select plan(2);

select is(pg_temp.error_of($$select * from actae.list_channels(
        p_before_created_at => now(), p_before_channel_id => '')$$) ->> 'message',
    'before_channel_id must be 1 to 256 bytes of text', 'empty is AC400 naming before_channel_id');
select is(pg_temp.error_of(format($$select * from actae.list_channels(
        p_before_created_at => now(), p_before_channel_id => %L)$$, repeat('x', 257)))
    -> 'detail' ->> 'argument', 'before_channel_id', 'over-long is AC400 naming it');

select * from finish();
rollback;
