-- watch_channel's seconds is required: null is AC400 naming seconds ("seconds is
-- required"), not a call that returns the topic without registering the watch; nothing is
-- written (the channel is not created either).
begin;
\ir ../helpers.psql
select plan(4);

select actae.record_event('tap-wsr', 'e', '{}');
select pg_temp.ledger_digest() as before \gset

select is(
    pg_temp.error_of($$select actae.watch_channel('tap-wsr', null)$$),
    '{"sqlstate": "AC400", "message": "seconds is required",
      "detail": {"argument": "seconds"}}'::jsonb,
    'a null seconds is AC400 naming seconds');
select is(
    pg_temp.error_of($$select actae.watch_channel('tap-wsr-new', null)$$) ->> 'sqlstate',
    'AC400', 'also for a channel that does not exist yet');
select is(pg_temp.ledger_digest(), :'before', 'nothing was written');
select is((select watched_until from actae.channels where channel_id = 'tap-wsr'), null,
    'the channel is not watched');

select * from finish();
rollback;
