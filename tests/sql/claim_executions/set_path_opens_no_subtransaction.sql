-- The set paths of claim_executions and complete_executions write in the caller's own
-- transaction: they run outside the block that names a failing element, which is a
-- subtransaction (its writes would carry a subtransaction's xid as xmin). Only a batch
-- that takes the element-by-element loop opens one; its outcomes are unchanged.
begin;
\ir ../helpers.psql
select plan(5);

create temp table c as
select row_number() over () as n, b.*
from actae.claim_executions('tap-nosub', array['a', 'b', 'c'], array['t', 't', 't'],
    array['{}', '{}', '{}']::jsonb[]) as b;
select is(
    (select count(*) from actae.executions as e
        where e.channel_id = 'tap-nosub' and e.xmin::text = pg_current_xact_id()::text),
    3::bigint, 'every claimed row is written by the caller''s transaction itself');

create temp table done as
select d.* from actae.complete_executions(
    (select array_agg(execution_id order by n) from c),
    (select array_agg(claim_token order by n) from c),
    array['1', '2', '3']::jsonb[], 'tap-nosub') as d;
select is(
    (select count(*) from actae.executions as e
        where e.channel_id = 'tap-nosub' and e.status = 'completed'
            and e.xmin::text = pg_current_xact_id()::text),
    3::bigint, 'every completion too');

-- A key that exists already takes the loop (claim_execution per element, in the block);
-- the new keys of that batch are still claimed by the set path's INSERT.
create temp table again as
select row_number() over () as n, b.*
from actae.claim_executions('tap-nosub', array['a', 'd'], array['t', 't'],
    array['{}', '{}']::jsonb[]) as b;
select results_eq(
    $$select outcome::text, key_name from again order by n$$,
    $$values ('replayed', 'a'), ('claimed', 'd')$$,
    'a batch with an existing key still gets each element''s outcome');
select is(
    (select e.xmin::text from actae.executions as e
        where e.channel_id = 'tap-nosub' and e.key_name = 'd'),
    pg_current_xact_id()::text, 'its new key by the set path');
select is(
    (select count(*) from actae.executions as e where e.channel_id = 'tap-nosub'),
    4::bigint, 'and kept the new key');

select * from finish();
rollback;
