-- One purge call deletes at most about batch_size rows: it stops once the budget is spent
-- (more = true) instead of deleting every purgeable channel in one long transaction.
begin;
\ir ../helpers.psql
select plan(2);

select actae.record_event('tap-pb-' || i, 'e', '{}') from generate_series(1, 5) as i;
select actae.close_channel('tap-pb-' || i) from generate_series(1, 5) as i;
select actae._set_test_clock(interval '2 days');
create temp table p as select * from actae.purge(interval '1 day', 2);
select is((select channels from p), 1::bigint,
    'a budget of 2 rows deletes one channel (its event and its row)');
select is((select more from p), true, 'and says there is more');
select actae._set_test_clock(null);

select * from finish();
rollback;
