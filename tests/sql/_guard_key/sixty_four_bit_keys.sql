-- actae._guard_key: a channel guard's advisory-lock key is a 64-bit hash of the channel id
-- seeded by the guard's class, so two channel ids whose 32-bit hashtext is the same (one
-- tenant's channel and an id another tenant picked) have different keys, and the purge
-- guard and the clock guard of one channel are different locks.
begin;
\ir ../helpers.psql
select plan(4);

-- Two ids with the same 32-bit hash: found among 300 000 names in a fraction of a second.
create temp table pair as
select array_agg(n order by n) as ids from (
    select 'ch-' || i as n, hashtext('ch-' || i) as h from generate_series(1, 300000) as i
) as s group by h having count(*) > 1 limit 1;
select is((select hashtext(ids[1]) = hashtext(ids[2]) from pair), true,
    'a pair of ids with one 32-bit hash exists');
select isnt((select actae._guard_key(1633907811, ids[1]) from pair),
    (select actae._guard_key(1633907811, ids[2]) from pair),
    'their guard keys differ');
select isnt(actae._guard_key(1633907809, 'tap-gk'), actae._guard_key(1633907811, 'tap-gk'),
    'the purge guard and the clock guard of a channel are different locks');
select is(actae._guard_key(1633907811, 'tap-gk'), hashtextextended('tap-gk', 1633907811),
    'the key is hashtextextended of the id, seeded by the class');

select * from finish();
rollback;
