-- follow_channel's arguments: seconds is required and 1..86400 (AC400 naming seconds),
-- checked before the channel is looked up (an unknown channel with bad seconds is AC400);
-- a bad channel_id is AC400 naming channel_id. Nothing is registered by a refused call.
begin;
\ir ../helpers.psql
select plan(6);

select actae.record_event('tap-fcb', 'e', '{}');
create temp table before as select watched_until from actae.channels where channel_id = 'tap-fcb';
select is(pg_temp.error_of($$select actae.follow_channel('tap-fcb', null)$$)
    -> 'detail' ->> 'argument', 'seconds', 'a null seconds is AC400 naming seconds');
select is(pg_temp.error_of($$select actae.follow_channel('tap-fcb', 86401)$$)
    -> 'detail' ->> 'argument', 'seconds', 'seconds 86401 is AC400');
select is((select watched_until from actae.channels where channel_id = 'tap-fcb'),
    (select watched_until from before), 'and nothing is registered');
select is(pg_temp.error_of($$select actae.follow_channel('tap-fcb-none', 0)$$)
    -> 'detail' ->> 'argument', 'seconds', 'bad seconds before an unknown channel');
select is(pg_temp.error_of(format('select actae.follow_channel(%L)', repeat('c', 257)))
    -> 'detail' ->> 'argument', 'channel_id', 'a 257-byte channel_id is AC400');
select is(pg_temp.error_of($$select actae.follow_channel('tap-fcb', 86400)$$), null,
    'seconds 86400 is accepted');

select * from finish();
rollback;
