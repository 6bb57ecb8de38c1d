-- Bring query_card to the state staged in stage_query_card (rows are their own key).
MERGE INTO query_card AS t
USING stage_query_card AS s
ON t.query = s.query
   AND t.oracle_id = s.oracle_id
WHEN NOT MATCHED THEN INSERT
WHEN NOT MATCHED BY SOURCE THEN DELETE
RETURNING merge_action;
