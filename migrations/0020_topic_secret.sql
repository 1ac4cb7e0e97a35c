-- 0020_topic_secret: the secret from which channels' NOTIFY topics are derived.
--
-- A channel's topic was 'actae_' || md5(channel_id): anyone could compute it and LISTEN to
-- another tenant's channel's new cursors. The topic is now
-- 'actae_' || md5(secret || ':' || tenant || ':' || channel_id) (actae._topic), and only
-- actae_owner can read the secret: channel_topic and watch_channel hand the topic out only
-- to callers who may read the channel (docs/tenants.md).
-- One row (only_row is true), a reference table on Citus like quotas; re-runnable: the
-- table and its row are created only when missing, so a re-run keeps the secret and every
-- live watcher's topic.
create table if not exists actae.topic_secret (
    only_row boolean primary key default true check (only_row),
    secret text not null
);
alter table actae.topic_secret owner to actae_owner;
revoke all on actae.topic_secret from public, actae_agent, actae_auditor, actae_operator;
insert into actae.topic_secret (secret)
values (encode(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()), 'hex'))
on conflict (only_row) do nothing;
