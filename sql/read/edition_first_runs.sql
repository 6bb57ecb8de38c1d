-- Each edition of the rules the warehouse holds, and the first run that fetched its file
-- (raw_document names the first run that fetched those bytes from that URL).
SELECT CAST(e.effective_date AS VARCHAR) AS effective_date, min(d.run_id) AS first_run
FROM cr_edition e LEFT JOIN raw_document d USING (doc_id)
GROUP BY e.effective_date
ORDER BY e.effective_date;
