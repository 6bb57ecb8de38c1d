-- How many cards the view of $query holds once a run's rows are merged (load/warehouse.py load_run:
-- a bulk view whose query keeps no card of the bulk file is refused, as a search that matches
-- nothing is).
SELECT count(*) FROM query_card WHERE query = $query;
