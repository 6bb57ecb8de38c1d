"""Settings from the environment: what is refused, with exit 78, before anything runs."""

from __future__ import annotations

import pytest

from pipeline import config
from pipeline.cli import main
from pipeline.config import from_env
from pipeline.errors import ConfigError
from pipeline.rawstore import RawStore

from support.warehouse_state import loaded_runs


@pytest.mark.parametrize("name,value,message", [
    ("CASEFILE_READ_TIMEOUT", "nan", "must be a finite number"),
    ("CASEFILE_BACKOFF_MAX", "inf", "must be a finite number"),
    ("CASEFILE_READER_WAIT", "-1", "reader_wait_s may not be negative"),
    ("CASEFILE_CONNECT_TIMEOUT", "-0.5", "connect_timeout_s may not be negative"),
    ("CASEFILE_MEMORY_LIMIT_MB", "1", "memory_limit_mb must be 0"),
    ("CASEFILE_MEMORY_LIMIT_MB", "-5", "memory_limit_mb must be 0"),
    ("CASEFILE_MAX_BULK_BYTES", "10", "max_bulk_bytes must be at least 1024"),
    ("CASEFILE_CONTACT", "ops@example.org\r\nX-Injected: 1", "control characters"),
    ("CASEFILE_MAX_ATTEMPTS", "five", "must be a number"),
])
def test_a_bad_setting_is_refused_by_name(tmp_path, name, value, message):
    with pytest.raises(ConfigError, match=message):
        from_env({"CASEFILE_DATA_DIR": str(tmp_path), name: value})


def test_the_settings_the_readme_shows_are_accepted(tmp_path):
    settings = from_env({"CASEFILE_DATA_DIR": str(tmp_path), "CASEFILE_MEMORY_LIMIT_MB": "0",
                         "CASEFILE_CONTACT": "ops@example.org", "CASEFILE_READER_WAIT": "0"})
    assert settings.memory_limit_mb == 0 and settings.user_agent.endswith("(+ops@example.org)")


def test_running_out_of_memory_is_exit_78_and_the_fetched_run_is_loaded_by_the_next_sync(
        data_dir, capsys, monkeypatch):
    monkeypatch.setattr(config, "MIN_MEMORY_LIMIT_MB", 0)  # a limit no load fits in
    monkeypatch.setenv("CASEFILE_MEMORY_LIMIT_MB", "1")
    assert main(["--data-dir", str(data_dir), "sync", "--offline"]) == 78
    err = capsys.readouterr().err
    assert "ran out of memory" in err and "CASEFILE_MEMORY_LIMIT_MB" in err and "Traceback" not in err
    [run] = RawStore(data_dir / "raw").complete_runs()

    monkeypatch.delenv("CASEFILE_MEMORY_LIMIT_MB")
    assert main(["--data-dir", str(data_dir), "-q", "sync", "--offline"]) == 0
    assert run.run_id in {row[0] for row in loaded_runs(data_dir)}
