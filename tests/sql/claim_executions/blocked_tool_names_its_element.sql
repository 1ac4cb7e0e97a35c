-- A tool blocked by a fork's policy, claimed in a batch, is AC403 naming its element (the
-- batch's per-element DETAIL), and the batch writes nothing.
begin;
\ir ../helpers.psql
select plan(2);

select actae.record_event('tap-bb-src', 'e', '{}');
select actae.fork_channel('tap-bb-src', 1, 'tap-bb-fork', null, '{"t": "block"}');
select is((select (value ->> 'sqlstate') || ' element ' || (value -> 'detail' ->> 'element')
    from pg_temp.error_of($$select * from actae.claim_executions('tap-bb-fork',
        array['a', 'b'], array['u', 't'], array['{}', '{}']::jsonb[])$$) as value),
    'AC403 element 2', 'the blocked tool''s element is named');
select is((select count(*) from actae.executions where channel_id = 'tap-bb-fork'),
    0::bigint, 'and the other element was not claimed either');

select * from finish();
rollback;
