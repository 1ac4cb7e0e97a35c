-- A write's idx is an integer in -1000000..1000000: with an otherwise valid write, a
-- fractional idx or one out of range is AC400 naming writes, and nothing is written;
-- the bounds themselves are accepted.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(5);

select pg_temp.lg_put('tap-lg-idx', '', 'cp-1');
create temp table digest_before as select pg_temp.lg_digest() as d;
select throws_ok($$select actae.langgraph_put_writes('tap-lg-idx', '', 'cp-1', 'task', '',
    '[{"idx": 0.5, "channel": "c", "value": {"value": 1}}]')$$,
    'AC400', null, 'a fractional idx');
select throws_ok($$select actae.langgraph_put_writes('tap-lg-idx', '', 'cp-1', 'task', '',
    '[{"idx": 1000001, "channel": "c", "value": {"value": 1}}]')$$,
    'AC400', null, 'an idx above 1000000');
select throws_ok($$select actae.langgraph_put_writes('tap-lg-idx', '', 'cp-1', 'task', '',
    '[{"idx": -1000001, "channel": "c", "value": {"value": 1}}]')$$,
    'AC400', null, 'an idx below -1000000');
select is(pg_temp.lg_digest(), d, 'nothing was written') from digest_before;
select is(actae.langgraph_put_writes('tap-lg-idx', '', 'cp-1', 'task', '',
    '[{"idx": 1000000, "channel": "c", "value": {"value": 1}},
      {"idx": -1000000, "channel": "c", "value": {"value": 2}}]'), 2,
    'the bounds are accepted');

select * from finish();
rollback;
