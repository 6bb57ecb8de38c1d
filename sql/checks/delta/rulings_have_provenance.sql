-- sql/checks/rulings_have_provenance.sql for a delta load: the rulings written, and those a
-- sighting pointed at before the load replaced or deleted it (apply_before_ruling_sighting),
-- must each have a sighting; a wiki-only ruling written must be undated.
SELECT c.ruling_id, 'no sighting' AS problem
FROM (SELECT ruling_id FROM stage_ruling UNION SELECT ruling_id FROM apply_before_ruling_sighting) AS c
SEMI JOIN ruling USING (ruling_id)
ANTI JOIN ruling_sighting s USING (ruling_id)
UNION ALL
SELECT ruling_id, 'mtgwiki ruling with a date' FROM stage_ruling WHERE source = 'mtgwiki' AND published_at IS NOT NULL;
