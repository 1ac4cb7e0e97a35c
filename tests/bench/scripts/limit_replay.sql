-- Physical limit of a replay: read the stored result of a completed key by primary key.
\set k random(1, 200)
select status, result from bench.ledger
where channel_id = 'r' || :client_id and key_name = 'k' || :k;
