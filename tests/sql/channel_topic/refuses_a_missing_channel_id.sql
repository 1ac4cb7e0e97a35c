-- channel_topic answers any channel id with a topic (a decoy for one the caller may not
-- read), but a missing, empty or over-long channel_id is AC400 naming it, as for every
-- other function: the argument alone decides, no channel is read.
begin;
\ir ../helpers.psql
select plan(3);

select is(pg_temp.error_of($$select actae.channel_topic(null)$$) ->> 'message',
    'channel_id must be 1 to 256 bytes of text', 'null is AC400 naming channel_id');
select is(pg_temp.error_of($$select actae.channel_topic('')$$) ->> 'sqlstate', 'AC400',
    'empty is AC400');
select is(pg_temp.error_of(format($$select actae.channel_topic(%L)$$, repeat('x', 257)))
    ->> 'sqlstate', 'AC400', 'over-long is AC400');

select * from finish();
rollback;
