-- In a fork, after_key_name applies to the fork's own rows as to inherited ones: a page
-- after key k never lists k again, whether k is the fork's own completion or inherited, so
-- passing the last key back walks every key exactly once.
begin;
\ir ../helpers.psql
select plan(3);

select pg_temp.completed('tap-lfo', 'a', 't', '"root-a"');
select pg_temp.completed('tap-lfo', 'c', 't', '"root-c"');
select pg_temp.record_steps('tap-lfo', 1);
select actae.fork_channel('tap-lfo', 1, 'tap-lfo-fork');
select pg_temp.completed('tap-lfo-fork', 'b', 't', '"fork-b"');
select pg_temp.completed('tap-lfo-fork', 'd', 't', '"fork-d"');

select results_eq(
    $$select key_name from actae.list_completed('tap-lfo-fork', 'b')$$,
    $$values ('c'::text), ('d')$$, 'after the fork''s own key b: c (inherited) and d');
select results_eq(
    $$select key_name from actae.list_completed('tap-lfo-fork', 'd')$$,
    $$select null::text where false$$, 'after the fork''s own last key: nothing');
select results_eq(
    $$with recursive pages (n, after_key, keys) as (
        select 0, null::text, array[]::text[]
        union all
        select p.n + 1, l.key_name, p.keys || l.key_name
        from pages as p
        cross join lateral actae.list_completed('tap-lfo-fork', p.after_key, 1) as l
        where p.n < 10
      )
      select keys from pages order by n desc limit 1$$,
    $$values (array['a', 'b', 'c', 'd']::text[])$$,
    'pages of one row walk every key once');

select * from finish();
rollback;
