-- A ruling exists because some document showed it: every ruling has at least one sighting,
-- and every wiki-only ruling is undated. Returns the rulings that break this.
SELECT r.ruling_id, 'no sighting' AS problem FROM ruling r ANTI JOIN ruling_sighting s USING (ruling_id)
UNION ALL
SELECT ruling_id, 'mtgwiki ruling with a date' FROM ruling WHERE source = 'mtgwiki' AND published_at IS NOT NULL;
