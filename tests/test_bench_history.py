"""bench/history.py: days of SYNTHETIC history appended to a copy of a warehouse."""

import re

import pytest

from bench import history
from pipeline.cli import main

from support.warehouse_state import query


def test_each_day_changes_its_cards_and_rewords_its_rulings_from_the_day_before(warehouse_copy, capsys):
    data = warehouse_copy()
    events_before = query(data, "SELECT count(*) FROM change_event")[0][0]
    runs = query(data, "SELECT * FROM sync_run ORDER BY ALL")
    assert history.main([str(data), "--days", "3", "--cards", "5", "--rulings", "10"]) == 0
    assert "SYNTHETIC history of 3 days" in capsys.readouterr().out

    synthetic = "run_id < (SELECT min(run_id) FROM sync_run)"
    assert query(data, f"SELECT run_id, kind, count(*), min(seq), max(seq), count(DISTINCT seq) FROM change_event "
                       f"WHERE {synthetic} GROUP BY ALL ORDER BY ALL") == [
        (day, kind, n, first, last, n) for day in ("19990101T000000.000000Z", "19990102T000000.000000Z",
                                                    "19990103T000000.000000Z")
        for kind, n, first, last in (("card_changed", 5, 1, 5), ("ruling_reworded", 10, 6, 15))]
    assert query(data, "SELECT count(*) FROM change_event")[0][0] == events_before + 45
    assert query(data, "SELECT * FROM sync_run ORDER BY ALL") == runs  # history only

    # a day's wordings are reworded from the day before's, which that day retires
    chained = query(data, f"""
        SELECT count(*) FROM change_event AS e
        JOIN change_event AS before ON before.ruling_id = e.previous_ruling_id AND before.run_id < e.run_id
        WHERE e.run_id > '19990101' AND e.{synthetic}""")
    assert chained == [(20,)]
    assert query(data, """
        SELECT count(*) FROM change_event AS e JOIN retired_ruling AS r
            ON r.ruling_id = e.previous_ruling_id AND r.removed_in_run = e.run_id
        WHERE e.kind = 'ruling_reworded'""") == [(30,)]
    assert query(data, "SELECT count(*) FROM retired_ruling") == [(30,)]

    # ids in the warehouse's formats, none of them one the warehouse serves
    ids = query(data, f"SELECT ruling_id, previous_ruling_id FROM change_event WHERE ruling_id IS NOT NULL AND {synthetic}")
    assert all(re.fullmatch(r"r[0-9a-f]{15}", i) for pair in ids for i in pair)
    cards = query(data, f"SELECT oracle_id FROM change_event WHERE oracle_id IS NOT NULL AND {synthetic} "
                        f"UNION ALL SELECT unnest(cards) FROM change_event WHERE {synthetic}")
    assert all(re.fullmatch(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", i) for (i,) in cards)
    assert query(data, f"""SELECT count(*) FROM change_event WHERE {synthetic}
                            AND (ruling_id IN (SELECT ruling_id FROM ruling) OR oracle_id IN (SELECT oracle_id FROM card))
                        """) == [(0,)]
    assert query(data, "SELECT count(*) FROM retired_ruling WHERE ruling_id IN (SELECT ruling_id FROM ruling)") == [(0,)]

    # the warehouse stays one casefile accepts and loads into
    assert main(["--data-dir", str(data), "-q", "doctor"]) == 0
    assert main(["--data-dir", str(data), "-q", "sync", "--offline", "--sources", "api"]) == 0


def test_a_folder_without_a_warehouse_or_a_negative_count_is_refused(tmp_path, warehouse_copy, capsys):
    with pytest.raises(SystemExit) as exit_info:
        history.main([str(tmp_path)])
    assert exit_info.value.code == 2 and "no warehouse at" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        history.main([str(warehouse_copy()), "--days", "-1"])
    assert exit_info.value.code == 2 and "counts of 0 or more" in capsys.readouterr().err
