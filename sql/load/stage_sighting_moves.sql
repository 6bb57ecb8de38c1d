-- stage_sighting_moves, empty: the kept rulings file (to_doc_id) the sightings of a deleted one
-- (doc_id) of a view (place) are to name, for repoint_sightings.sql (casefile prune fills it).
DROP TABLE IF EXISTS temp.main.stage_sighting_moves;
CREATE TEMP TABLE stage_sighting_moves (doc_id VARCHAR, to_doc_id VARCHAR, place VARCHAR);
