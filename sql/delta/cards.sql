-- Card rows only for the cards in d_dirty: a printing read again for another of its cards (a
-- reversible card's faces) does not bring all the printings of this one.
DELETE FROM n_card WHERE oracle_id NOT IN (SELECT oracle_id FROM d_dirty);

-- The cards whose rulings are kept: those of the warehouse not derived again, and n_card; looked
-- at only for the cards of the rulings read (50_sighting.sql).
CREATE OR REPLACE TEMP VIEW n_known_card AS
SELECT oracle_id FROM card
WHERE oracle_id IN (SELECT oracle_id FROM ruling_object) AND oracle_id NOT IN (SELECT oracle_id FROM d_dirty)
UNION ALL
SELECT oracle_id FROM n_card;

-- The cards whose sightings change (d_sighted): d_ruling_dirty, whose sightings at the places of
-- d_ruling_place are derived again (d_sighted_place), and the cards that appear or go away, whose
-- sightings are all derived again (d_sighted_whole).
CREATE OR REPLACE TEMP TABLE d_sighted_whole AS
SELECT d.oracle_id FROM d_dirty AS d
WHERE (d.oracle_id IN (SELECT oracle_id FROM card)) <> (d.oracle_id IN (SELECT oracle_id FROM n_card));

CREATE OR REPLACE TEMP TABLE d_sighted AS
SELECT oracle_id FROM d_ruling_dirty UNION SELECT oracle_id FROM d_sighted_whole;

CREATE OR REPLACE TEMP TABLE d_sighted_place AS
SELECT d.oracle_id, p.position
FROM d_ruling_dirty AS d JOIN d_ruling_place AS p ON p.oracle_h = hash(d.oracle_id)
WHERE d.oracle_id NOT IN (SELECT oracle_id FROM d_sighted_whole);
