-- queue_topic checks its queue as start_run does (1 to 256 bytes of text, AC400 naming
-- queue): a topic no start_run could ever notify is an error, not a silent topic.
begin;
\ir ../helpers.psql
select plan(5);

select is(actae.queue_topic('default'), 'actae_queue_' || md5('default'),
    'a queue''s topic');
select is(pg_temp.error_of($$select actae.queue_topic(null)$$) -> 'detail' ->> 'argument',
    'queue', 'a null queue is AC400 naming queue');
select is(pg_temp.error_of($$select actae.queue_topic('')$$) ->> 'sqlstate', 'AC400',
    'an empty queue is AC400');
select is(pg_temp.error_of($$select actae.queue_topic(repeat('q', 257))$$) ->> 'message',
    (pg_temp.error_of($$select * from actae.start_run('tap-qt', 'agent', '{}',
        repeat('q', 257))$$) ->> 'message'),
    'a queue over 256 bytes: the message start_run gives');
select is(actae.queue_topic(repeat('q', 256)), 'actae_queue_' || md5(repeat('q', 256)),
    'a queue of 256 bytes has its topic');

select * from finish();
rollback;
