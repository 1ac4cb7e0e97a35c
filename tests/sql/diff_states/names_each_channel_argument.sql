-- A bad channel argument of diff_states is AC400 naming that argument (channel_a or
-- channel_b), not channel_id.
begin;
\ir ../helpers.psql
select plan(3);

select actae.record_event('tap-dn', 't', '{}') is not null as ok \gset
select is(pg_temp.error_of($$select actae.diff_states('tap-dn', null)$$) ->> 'message',
    'channel_b must be 1 to 256 bytes of text', 'a null channel_b is named');
select is(pg_temp.error_of($$select actae.diff_states('', 'tap-dn')$$) -> 'detail'
    ->> 'argument', 'channel_a', 'an empty channel_a is named');
select is(pg_temp.error_of($$select actae.diff_states('tap-dn', 'tap-dn-none')$$)
    ->> 'sqlstate', 'AC404', 'an unknown channel is still AC404');

select * from finish();
rollback;
