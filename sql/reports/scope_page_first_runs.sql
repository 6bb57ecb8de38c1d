-- scope_page (scope_views.sql) in a warehouse no writer of this version has opened yet, which has
-- no query_wiki_page: the wiki pages a run of the query fetched first (raw_document.run_id).
CREATE TEMP TABLE scope_page AS SELECT d.doc_id FROM {db}.main.raw_document AS d
    WHERE d.origin = 'mtgwiki' AND d.run_id IN (SELECT run_id FROM {db}.main.sync_run WHERE query = $query)
