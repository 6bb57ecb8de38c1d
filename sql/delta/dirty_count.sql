-- How many Oracle cards a delta build derived again (d_dirty, d_sighted), for its outcome.
SELECT count(*) FROM (SELECT oracle_id FROM d_dirty UNION SELECT oracle_id FROM d_sighted);
