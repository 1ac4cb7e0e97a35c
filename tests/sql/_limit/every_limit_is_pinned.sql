-- actae._limit holds these values for every argument it limits besides the quotas: a
-- limit changed in _limit (even one a test reads back from _limit, such as the
-- tool_policies entry count) changes this table, and so needs a reviewed change here.
begin;
\ir ../helpers.psql
select plan(2);

select results_eq(
    $$select a.name, actae._limit(a.name) from unnest(array[
        'channel_id', 'source_channel_id', 'new_channel_id', 'tool_name', 'event_type',
        'operation_id', 'key_name', 'key_names', 'execution_ids', 'max_runs', 'reason',
        'error', 'metadata', 'params', 'payload', 'result', 'state', 'lease_seconds',
        'seconds', 'max_rows', 'max_events', 'batch_size', 'dedup_fields', 'dedup_field',
        'tool_policies', 'fork_depth', 'watched_channels', 'json_depth', 'expected_cursor',
        'after_cursor', 'at_cursor', 'version', 'expected_version'
    ]) with ordinality as a (name, n) order by a.n$$,
    $$values ('channel_id', 256::bigint), ('source_channel_id', 256), ('new_channel_id', 256),
        ('tool_name', 256), ('event_type', 256), ('operation_id', 256), ('key_name', 1024),
        ('key_names', 1000), ('execution_ids', 1000), ('max_runs', 1000), ('reason', 4096),
        ('error', 65536), ('metadata', 65536), ('params', 1048576), ('payload', 1048576),
        ('result', 1048576), ('state', 8388608), ('lease_seconds', 86400),
        ('seconds', 86400), ('max_rows', 100000), ('max_events', 100000),
        ('batch_size', 100000), ('dedup_fields', 64), ('dedup_field', 256),
        ('tool_policies', 1000), ('fork_depth', 100), ('watched_channels', 1000),
        ('json_depth', 512), ('expected_cursor', 9223372036854775806),
        ('after_cursor', 9223372036854775806), ('at_cursor', 9223372036854775806),
        ('version', 9223372036854775806), ('expected_version', 9223372036854775806)$$,
    'every limit of _limit but the quotas'
);
select is(
    (select count(*) from unnest(array['max_channels', 'max_bytes', 'max_events_per_channel'])
        as q (name) where actae._limit(q.name) is null),
    0::bigint, 'the quota arguments have a limit too'
);

select * from finish();
rollback;
