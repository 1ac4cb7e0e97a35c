-- 0015_time_ordered_ids: execution ids are time-ordered (UUIDv7 layout), so a new execution's
-- entry in executions_execution_id_idx lands on the rightmost leaf page instead of a random
-- one. With random (version 4) ids every claim dirtied a random leaf of that index, and the
-- first change to a page after a checkpoint writes the whole page to WAL: about 0.4 full-page
-- images (3 KB of WAL) per step right after a checkpoint. Time-ordered ids keep touching the
-- same few pages.
--
-- actae._uuid7() is created here, not in sql/, because the column default below depends on
-- it (as actae._now() in 0006). claim_execution passes actae._uuid7() explicitly; the
-- default covers rows inserted by other means (bulk loads, restores). Claim tokens stay
-- random (gen_random_uuid()): they are secrets, and a time-ordered token would be guessable.

-- actae._uuid7() — a UUID with the version-7 layout (RFC 9562): 48 bits of Unix time in
-- milliseconds from clock_timestamp(), version nibble 7, variant bits 10, the remaining
-- 74 bits random. Ids of later milliseconds sort after earlier ones; ids of one millisecond
-- are in random order. Volatile (a new value on every call); raises nothing.
create or replace function actae._uuid7() returns uuid
language sql
volatile
as $$
    select pg_catalog.encode(
        pg_catalog.set_bit(
            pg_catalog.set_bit(
                overlay(
                    pg_catalog.uuid_send(pg_catalog.gen_random_uuid())
                    placing substring(pg_catalog.int8send(pg_catalog.floor(
                        extract(epoch from pg_catalog.clock_timestamp()) * 1000
                    )::bigint) from 3)
                    from 1 for 6
                ),
                52, 1
            ),
            53, 1
        ),
        'hex'
    )::uuid;
$$;

alter function actae._uuid7() owner to actae_owner;

alter table actae.executions alter column execution_id set default actae._uuid7();
