-- purge's more is true when a call deleted a fork, whose parent was kept for it and may be
-- purgeable now: a caller repeating while more (the CLI) purges a closed chain of forks
-- to its root, a generation per call, and then gets more = false.
begin;
\ir ../helpers.psql
select plan(4);

select pg_temp.record_steps('tap-pmf-0', 2);
select actae.fork_channel('tap-pmf-0', 1, 'tap-pmf-1');
select actae.fork_channel('tap-pmf-1', 1, 'tap-pmf-2');
select actae.close_channel(c) from unnest(array['tap-pmf-0', 'tap-pmf-1', 'tap-pmf-2']) as c;

create temp table calls (n serial, channels bigint, more boolean);
select is(
    (select more from actae.purge(interval '0', 100000)), true,
    'the call that deletes the last fork says more');
do $$
begin
    for i in 1 .. 5 loop
        insert into calls (channels, more)
        select p.channels, p.more from actae.purge(interval '0', 100000) as p;
    end loop;
end;
$$;
select is(
    (select count(*) from actae.channels where channel_id like 'tap-pmf-%'), 0::bigint,
    'repeated calls purge the chain to its root');
select ok(exists (select 1 from calls where not more),
    'and a call then says there is no more');
select is(
    (select more from actae.purge(interval '0', 100000)), false,
    'a call that deletes no fork and keeps its budget says no more');

select * from finish();
rollback;
