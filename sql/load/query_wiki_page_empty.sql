-- Whether query_wiki_page needs filling (fill_query_wiki_page.sql): it has no row and the
-- warehouse has wiki sightings, as a warehouse made before the table (pipeline/load/warehouse.py).
SELECT NOT EXISTS (SELECT 1 FROM query_wiki_page)
    AND EXISTS (SELECT 1 FROM ruling_sighting WHERE origin = 'mtgwiki');
