-- Point raw_document rows at another copy of the same body (casefile prune, before it deletes
-- runs). stage_moves: doc_id, path (a kept run's file of that document). Only rows whose path is
-- in a run being deleted ($deleted_runs: their ids; a path starts with its run's folder) move.
UPDATE raw_document AS d
SET path = m.path
FROM stage_moves AS m
WHERE d.doc_id = m.doc_id AND list_contains($deleted_runs, split_part(d.path, '/', 1));
