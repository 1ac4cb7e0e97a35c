-- 0021_channel_topic_nonce: a random nonce in every new channel's NOTIFY topic.
--
-- With topics derived from the secret and the channel id alone (0020), channel_topic could
-- be asked for the topic of a channel id before that channel existed, by any login: another
-- tenant could LISTEN on the topic of an id it expected someone else to create. A channel
-- created from now on carries a random topic_nonce, part of its topic (actae._topic), which
-- exists only once the channel does, and which does not change with the channel's tenant.
-- Channels created before keep their topic (no nonce). Re-runnable.
alter table actae.channels add column if not exists topic_nonce uuid;
alter table actae.channels alter column topic_nonce set default gen_random_uuid();
