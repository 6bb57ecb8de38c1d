-- The rulings of the cards of d_sighted, completed: n_card_ruling (65_card_ruling.sql) holds
-- those of the sightings derived again and of the partitions reconciled again; a card's other
-- sightings (d_kept_sighting, partitions_known.sql) keep their ruling and count too. A card's
-- ruling is at the place of its first sighting of it.
CREATE OR REPLACE TEMP TABLE n_card_ruling AS
SELECT oracle_id, ruling_id, min(position) AS position
FROM (
    SELECT oracle_id, ruling_id, position FROM n_card_ruling
    UNION ALL
    SELECT oracle_id, ruling_id, position FROM d_kept_sighting
    WHERE sighting_id NOT IN (SELECT sighting_id FROM d_partition_sighting)
)
GROUP BY oracle_id, ruling_id;

DROP TABLE d_kept_sighting;
