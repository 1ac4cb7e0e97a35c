-- run_at is a finite time before 9999-01-01 UTC (null or past: due now). 'infinity' would
-- store a run that is never due, and neither infinity nor a time in year 10000 or later
-- can be read back by the Python driver (datetime ends at year 9999; the bound leaves a
-- day for any session time zone): each is AC400 naming run_at, and nothing is written.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(10);

create temp table before as select pg_temp.ledger_digest() as d,
    (select count(*) from actae.runs) as n;
select is(pg_temp.error_of($$select actae.start_run('tap-srinf', 'a', '1', 'tap-q-srinf',
    'infinity')$$) ->> 'sqlstate', 'AC400', 'run_at infinity is AC400');
select is(pg_temp.error_of($$select actae.start_run('tap-srinf', 'a', '1', 'tap-q-srinf',
    'infinity')$$) -> 'detail' ->> 'argument', 'run_at', 'naming run_at');
select is(pg_temp.error_of($$select actae.start_run('tap-srinf', 'a', '1', 'tap-q-srinf',
    '-infinity')$$) -> 'detail' ->> 'argument', 'run_at', 'run_at -infinity is AC400');
select is(pg_temp.error_of($$select actae.start_run('tap-srinf', 'a', '1', 'tap-q-srinf',
    '9999-01-01 00:00:00+00')$$) -> 'detail' ->> 'argument', 'run_at',
    'run_at 9999-01-01 UTC is AC400');
select is(pg_temp.error_of($$select actae.start_run('tap-srinf', 'a', '1', 'tap-q-srinf',
    '20000-01-01 00:00:00+00')$$) -> 'detail' ->> 'argument', 'run_at',
    'run_at in year 20000 is AC400');
select is((select pg_temp.ledger_digest()), (select d from before), 'nothing was written');
select is((select count(*) from actae.runs), (select n from before), 'no run was created');

create temp table edge as select * from actae.start_run('tap-srinf', 'a', '1', 'tap-q-srinf',
    '9998-12-31 23:59:59.999999+00');
select is(due_at, '9998-12-31 23:59:59.999999+00'::timestamptz,
    'the last accepted instant is stored as given') from edge;
select is((select status from actae.start_run('tap-srinf-past', 'a', '1', 'tap-q-srinf',
    '4713-01-01 00:00:00+00 BC')), 'queued', 'a finite time in the past is accepted');
select cmp_ok((select due_at from actae.get_run('tap-srinf-past')), '<=', actae._now(),
    'and due now');

select * from finish();
rollback;
