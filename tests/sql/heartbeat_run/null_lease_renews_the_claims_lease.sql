-- heartbeat_run without lease_seconds renews the lease the claim asked for (not a fixed
-- 60 s, and not the lease of an earlier heartbeat).
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql

select plan(3);

select actae.start_run('tap-hr-nl', 'a', '1', 'tap-q-hr-nl');
create temp table c as select * from actae.claim_run('tap-q-hr-nl', 'w', null, 30);
select is((select lease_expires_at - heartbeat_at from actae.heartbeat_run('tap-hr-nl',
    (select claim_token from c))), interval '30 seconds', 'the claim''s 30 s lease is renewed');
select is((select lease_expires_at - heartbeat_at from actae.heartbeat_run('tap-hr-nl',
    (select claim_token from c), 600)), interval '600 seconds', 'a given lease is used');
select is((select lease_expires_at - heartbeat_at from actae.heartbeat_run('tap-hr-nl',
    (select claim_token from c), null)), interval '30 seconds',
    'then without one, the claim''s lease again');

select * from finish();
rollback;
