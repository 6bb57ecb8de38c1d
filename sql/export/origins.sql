-- The places the exported rulings were read from (a sighting's or a translation's origin), with
-- how many rulings each gave, for the datasheet's sources.
SELECT origin, count(DISTINCT ruling_id) AS rulings
FROM (SELECT origin, ruling_id FROM ruling_sighting
      UNION ALL
      SELECT origin, ruling_id FROM ruling_translation)
GROUP BY origin
ORDER BY origin;
