-- list_channels returns channels newest first; passing the last row's created_at and
-- channel_id as before_* gives the next page, so paging returns every channel once, even
-- when a channel is created between two pages.
begin;
\ir ../helpers.psql
select plan(4);

-- created_at is set explicitly so the order does not depend on the clock's resolution.
select actae.create_channel('tap-lc-' || i, '{"suite": "tap-lc"}') from generate_series(1, 5) as i;
update actae.channels set created_at = '2030-01-01'::timestamptz + make_interval(mins => right(channel_id, 1)::int)
where channel_id like 'tap-lc-%';

select results_eq(
    $$select channel_id from actae.list_channels(p_metadata => '{"suite": "tap-lc"}')$$,
    $$values ('tap-lc-5'), ('tap-lc-4'), ('tap-lc-3'), ('tap-lc-2'), ('tap-lc-1')$$,
    'newest first');
select results_eq(
    $$select channel_id from actae.list_channels(p_metadata => '{"suite": "tap-lc"}',
        p_max_rows => 2)$$,
    $$values ('tap-lc-5'), ('tap-lc-4')$$, 'max_rows bounds the page');
select actae.create_channel('tap-lc-9', '{"suite": "tap-lc"}');
update actae.channels set created_at = '2030-01-01 00:09' where channel_id = 'tap-lc-9';
select results_eq(
    $$select channel_id from actae.list_channels(p_metadata => '{"suite": "tap-lc"}',
        p_before_created_at => '2030-01-01 00:04', p_before_channel_id => 'tap-lc-4',
        p_max_rows => 2)$$,
    $$values ('tap-lc-3'), ('tap-lc-2')$$,
    'the next page starts after the last row, whatever was created meanwhile');
select results_eq(
    $$select channel_id from actae.list_channels(p_metadata => '{"suite": "tap-lc"}',
        p_before_created_at => '2030-01-01 00:02', p_before_channel_id => 'tap-lc-2')$$,
    $$values ('tap-lc-1')$$, 'the last page');

select * from finish();
rollback;
