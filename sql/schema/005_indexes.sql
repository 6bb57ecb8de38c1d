-- Indexes for the lookups casefile's commands make, not for joins (DuckDB joins by hashing).
-- The cards of the rulings a search shows: without it, each search scans every card_ruling row.
CREATE INDEX IF NOT EXISTS card_ruling_by_ruling ON card_ruling (ruling_id);
