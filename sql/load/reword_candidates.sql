-- Removed + added rulings that could be one ruling re-worded: same source, same date, same cards.
-- pipeline/changes.py decides which are, by how alike their texts are.
SELECT o.ruling_id AS old_id, n.ruling_id AS new_id, o.before, n.after
FROM n_change AS o
JOIN old_ruling AS ro ON ro.ruling_id = o.ruling_id
JOIN n_change AS n ON n.kind = 'ruling_added' AND n.cards = o.cards
JOIN stage_ruling AS rn ON rn.ruling_id = n.ruling_id
WHERE o.kind = 'ruling_removed'
  AND ro.source IS NOT DISTINCT FROM rn.source
  AND ro.published_at IS NOT DISTINCT FROM rn.published_at;
