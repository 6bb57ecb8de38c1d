-- The edition the warehouse's links were made against: the newest it holds (every load links to
-- the newest edition of its runs). No row before the first ingest.
SELECT doc_id FROM cr_edition ORDER BY effective_date DESC LIMIT 1;
