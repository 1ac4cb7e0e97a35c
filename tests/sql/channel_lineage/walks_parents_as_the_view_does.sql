-- actae.channel_lineage(channel_id): the ancestors of one channel, root first, walked parent
-- by parent (one statement per generation, so it runs on Citus where the view's recursive
-- CTE does not): the same rows as the view for every channel of a tree, empty for a root,
-- AC400 / AC404 for a bad or unknown channel, and a walk that stops at an ancestor of
-- another tenant.
begin;
\ir ../helpers.psql
select plan(10);

select pg_temp.record_steps('tap-lf-root', 5);
select actae.fork_channel('tap-lf-root', 4, 'tap-lf-a');
select pg_temp.record_steps('tap-lf-a', 2);
select actae.fork_channel('tap-lf-a', 6, 'tap-lf-b');
select actae.fork_channel('tap-lf-b', 3, 'tap-lf-c');
select actae.fork_channel('tap-lf-root', 2, 'tap-lf-d');

select results_eq(
    $$ select ancestor_channel_id, generation, inherited_cursor
       from actae.channel_lineage('tap-lf-c') $$,
    $$ values ('tap-lf-root'::text, 3, 3::bigint), ('tap-lf-a', 2, 3::bigint),
        ('tap-lf-b', 1, 3::bigint) $$,
    'a fork of a fork of a fork: root first, each ancestor with the cursor the channel sees'
);
select is_empty(
    $$ select * from actae.channel_lineage('tap-lf-root') $$, 'a root has no ancestors'
);
select is(
    (select count(*) from actae.channels as c
     cross join lateral (
         (select * from actae.channel_lineage(c.channel_id)
          except select * from actae.channel_lineage as v where v.channel_id = c.channel_id)
         union all
         (select * from actae.channel_lineage as v where v.channel_id = c.channel_id
          except select * from actae.channel_lineage(c.channel_id))
     ) as d
     where c.channel_id like 'tap-lf-%'),
    0::bigint, 'the same rows as the view for every channel of the tree'
);
select is(
    (select array_agg(channel_id order by generation desc)
     from actae.channel_lineage('tap-lf-b')),
    array['tap-lf-b', 'tap-lf-b'], 'every row names the channel asked about'
);

select pg_temp.ledger_digest() as before \gset
select is(pg_temp.error_of($$ select * from actae.channel_lineage('') $$) ->> 'sqlstate',
    'AC400', 'an empty channel_id is AC400');
select is(pg_temp.error_of($$ select * from actae.channel_lineage(null) $$) ->> 'message',
    'channel_id must be 1 to 256 bytes of text', 'a null channel_id is AC400 naming it');
select is(pg_temp.error_of($$ select * from actae.channel_lineage('tap-lf-none') $$)
    ->> 'sqlstate', 'AC404', 'an unknown channel is AC404');
select is(pg_temp.ledger_digest(), :'before', 'the refused calls wrote nothing');

-- Another tenant's ancestor ends the walk: t_lf_one reads its own fork, not beyond the
-- parent that assign_tenant gave to another tenant.
select pg_temp.two_tenants('t_lf_ten_one', 't_lf_ten_two', 't_lf_one', 't_lf_two');
create temp table seen (what text, value jsonb);
grant insert on seen to public;
select pg_temp.record_steps('tap-lf-t-root', 3);
select actae.fork_channel('tap-lf-t-root', 2, 'tap-lf-t-a');
select actae.fork_channel('tap-lf-t-a', 1, 'tap-lf-t-b');
select actae.assign_tenant(c, 't_lf_ten_one') from unnest(array['tap-lf-t-a', 'tap-lf-t-b']) as c;
select actae.assign_tenant('tap-lf-t-root', 't_lf_ten_two');
set local session authorization t_lf_one;
insert into seen select 'one', coalesce(jsonb_agg(l.ancestor_channel_id), '[]')
from actae.channel_lineage('tap-lf-t-b') as l;
set local session authorization t_lf_two;
insert into seen values ('two', pg_temp.error_of(
    $$ select * from actae.channel_lineage('tap-lf-t-b') $$));
reset session authorization;
select is((select value from seen where what = 'one'), '["tap-lf-t-a"]'::jsonb,
    'the walk stops before an ancestor of another tenant');
select is((select value ->> 'sqlstate' from seen where what = 'two'), 'AC404',
    'another tenant''s channel is AC404, as an unknown one');

select * from finish();
rollback;
