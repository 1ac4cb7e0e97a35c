-- fork_channel on a channel every tenant shares (tenant actae_agent, a channel written before
-- tenants existed): its operation_id namespace is one for all of them (SPEC 3a), so an
-- operation_id another tenant's fork took is AC409 for this tenant, with the same message
-- and DETAIL whether the request is the same or not, naming only the caller's own arguments
-- (never the other tenant's fork id, nor a fingerprint of its request); nothing is written.
-- The tenant that forked still replays its receipt.
begin;
\ir ../helpers.psql
select plan(9);

select pg_temp.two_tenants('t_fso_1', 't_fso_2', 't_fso_a', 't_fso_b');
select pg_temp.record_steps('tap-fso', 3);
update actae.channels set tenant = 'actae_agent'::regrole where channel_id = 'tap-fso';
create temp table seen (what text, value jsonb);
grant insert, select on seen to public;

set local session authorization t_fso_a;
insert into seen select 'forked', to_jsonb(f)
from actae.fork_channel('tap-fso', 1, null, 'resume-1') as f;
insert into seen select 'named', to_jsonb(f)
from actae.fork_channel('tap-fso', 1, 'tap-fso-a-private', 'resume-2') as f;
reset session authorization;
select pg_temp.ledger_digest() as before \gset

set local session authorization t_fso_b;
insert into seen values
    ('same', pg_temp.error_of(
        $$select actae.fork_channel('tap-fso', 1, null, 'resume-1')$$)),
    ('different', pg_temp.error_of(
        $$select actae.fork_channel('tap-fso', 2, 'tap-fso-b', 'resume-1', '{"t": "live"}')$$)),
    ('different named', pg_temp.error_of(
        $$select actae.fork_channel('tap-fso', 2, null, 'resume-2')$$));
reset session authorization;
select is(pg_temp.ledger_digest(), :'before', 'the refused calls wrote nothing');

set local session authorization t_fso_a;
insert into seen select 'again', to_jsonb(f)
from actae.fork_channel('tap-fso', 1, null, 'resume-1') as f;
reset session authorization;

select is((select value ->> 'sqlstate' from seen where what = 'same'), 'AC409',
    'another tenant''s operation_id on the shared channel is AC409');
select is((select value ->> 'message' from seen where what = 'same'),
    'operation_id resume-1 in channel tap-fso was already used by a fork this caller cannot '
    'read',
    'saying the operation_id is taken in that channel');
select is((select value -> 'detail' from seen where what = 'same'),
    '{"channel_id": "tap-fso", "operation_id": "resume-1"}'::jsonb,
    'DETAIL names only the caller''s own arguments');
select ok(
    (select position((select value ->> 'channel_id' from seen where what = 'forked')
        in value::text) = 0 from seen where what = 'same'),
    'the other tenant''s fork id appears nowhere');
select is(
    (select value - 'message' from seen where what = 'different'),
    (select value - 'message' from seen where what = 'same'),
    'a different request gets the same answer');
select is(
    (select value ->> 'message' from seen where what = 'different'),
    (select value ->> 'message' from seen where what = 'same'),
    'with the same message');
select ok(
    (select value ->> 'sqlstate' = 'AC409' and value -> 'detail'
        = '{"channel_id": "tap-fso", "operation_id": "resume-2"}'::jsonb
        and position('tap-fso-a-private' in value::text) = 0
     from seen where what = 'different named'),
    'a different request under the id of a named fork never names that fork');
select ok(
    (select a.value ->> 'outcome' = 'replayed'
        and a.value ->> 'channel_id' = f.value ->> 'channel_id'
     from seen as a, seen as f where a.what = 'again' and f.what = 'forked'),
    'the tenant that forked still replays its receipt');

select * from finish();
rollback;
