-- Bring query_wiki_page to the state staged in stage_query_wiki_page (rows are their own key).
MERGE INTO query_wiki_page AS t
USING stage_query_wiki_page AS s
ON t.query = s.query
   AND t.doc_id = s.doc_id
WHEN NOT MATCHED THEN INSERT
WHEN NOT MATCHED BY SOURCE THEN DELETE
RETURNING merge_action;
