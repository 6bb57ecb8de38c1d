-- Each edition of the rules the warehouse holds, the run whose copy of its file raw_document
-- names (the first run that fetched those bytes from that URL, or the copy a later load pointed
-- it at when that run's folder was gone) and the file's sha256.
SELECT CAST(e.effective_date AS VARCHAR) AS effective_date, min(split_part(d.path, '/', 1)) AS first_run,
       min(d.sha256) AS sha256
FROM cr_edition e LEFT JOIN raw_document d USING (doc_id)
GROUP BY e.effective_date
ORDER BY e.effective_date;
