-- tags is a one-dimensional array of tags: a multi-dimensional one is AC400 saying so, and
-- every element is checked whatever the array's lower bound ('[5:6]={a,b}' is two good
-- tags, '[5:6]={a,""}' names the empty one).
begin;
\ir ../helpers.psql
select plan(3);

select channel_id as made from actae.create_channel('tap-at') \gset
select is(pg_temp.error_of($$select actae.annotate_channel('tap-at', null,
        '{{a,b},{c,d}}'::text[], null, 0)$$) ->> 'message',
    'tags must be a one-dimensional array', 'a 2-D array is refused, saying so');
select is((select tags from actae.annotate_channel('tap-at', null, '[5:6]={b,a}'::text[],
        null, 0)), array['a', 'b'], 'an array from 5 gives its tags');
select is(pg_temp.error_of($$select actae.annotate_channel('tap-at', null,
        '[5:6]={a,""}'::text[], null, 1)$$) -> 'detail',
    '{"argument": "tags", "bytes": 0, "max_bytes": 64}', 'its empty tag is named');

select * from finish();
rollback;
