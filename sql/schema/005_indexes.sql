-- casefile makes no index. A warehouse made by an older casefile has one on card_ruling
-- (ruling_id), for the cards of a search's rulings: ruling_card_names serves them now, and DuckDB
-- wrote that index whole at every checkpoint after a change to card_ruling. It goes at the
-- writer's next open.
DROP INDEX IF EXISTS card_ruling_by_ruling;
