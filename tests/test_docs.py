"""The README is the front door: it names every command and every long option."""

import re

import click
import pytest

from pipeline.cli import main_group

from conftest import ROOT

README = (ROOT / "README.md").read_text("utf-8")


@pytest.mark.parametrize("name", sorted(main_group.commands))
def test_every_command_has_a_readme_section_with_an_example(name):
    assert f"### `casefile {name}" in README
    assert re.search(rf"^casefile (--[\w-]+ \S+ )*{name}\b", README, re.M), f"no example of casefile {name}"


def _long_options():
    for name, command in sorted(main_group.commands.items()):
        for param in command.params:
            if isinstance(param, click.Option):
                for opt in param.opts + param.secondary_opts:
                    if opt.startswith("--"):
                        yield name, opt
    for param in main_group.params:
        if isinstance(param, click.Option):
            for opt in param.opts:
                if opt.startswith("--") and opt not in ("--help", "--version"):
                    yield "", opt


@pytest.mark.parametrize("command,option", list(_long_options()))
def test_every_long_option_is_documented(command, option):
    assert option in README, f"{option} of casefile {command} is not in the README"


def test_readme_names_the_two_setup_commands_and_exit_codes():
    assert "make sample" in README and "make test" in README
    for code in (0, 1, 2, 65, 69, 75, 78):
        assert re.search(rf"^\| {code} \|", README, re.M), code


def test_every_table_of_the_schema_is_documented():
    schema = "\n".join(p.read_text() for p in (ROOT / "sql" / "schema").glob("*.sql"))
    for table in re.findall(r"CREATE TABLE IF NOT EXISTS ([\w.]+)", schema):
        assert f"| `{table}` |" in README, table


def test_the_doctor_example_counts_the_checks_there_are():
    shown = re.findall(r"^ok +warehouse +(\d+) checks pass; (\d+) tables read whole$", README, re.M)
    assert shown and {int(n) for n, _ in shown} == {len(list((ROOT / "sql" / "checks").glob("*.sql")))}
    tables = re.findall(r"CREATE TABLE IF NOT EXISTS ([\w.]+)", "\n".join(
        p.read_text() for p in (ROOT / "sql" / "schema").glob("*.sql")))
    assert {int(n) for _, n in shown} == {len(tables)}


def test_every_column_of_the_schema_is_named_in_its_tables_row(tmp_path):
    """The table contract of "Tables" names every column each table has (the schema applied to
    an empty DuckDB file, as a writer applies it), in the row of its table."""
    import duckdb

    from pipeline.load.warehouse import apply_schema

    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    try:
        apply_schema(con)
        columns: dict[str, list[str]] = {}
        for table, column in con.execute("SELECT table_name, column_name FROM information_schema.columns "
                                         "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position"
                                         ).fetchall():
            columns.setdefault(table, []).append(column)
    finally:
        con.close()
    assert columns
    for table, names in columns.items():
        row = re.search(rf"^\| `{table}` \|.*$", README, re.M)
        assert row, table
        missing = [name for name in names if f"`{name}`" not in row.group(0)]
        assert not missing, (table, missing)


def test_the_workflow_saves_the_raw_store_of_every_attempt_under_its_own_key():
    """A cache key is written once: a re-run of a night's workflow (same run_id) whose key did not
    name the attempt could not save its raw store, and the next night would restore the one before."""
    workflow = re.search(r"^```yaml\n(.*?)^```", README, re.M | re.S).group(1)
    keys = re.findall(r"^\s+key: (.+)$", workflow, re.M)
    assert len(keys) == 2 and len(set(keys)) == 1, keys
    assert "${{ github.run_id }}" in keys[0] and "${{ github.run_attempt }}" in keys[0]
    assert re.search(r"^\s+restore-keys: casefile-raw-$", workflow, re.M)


def test_the_workflow_publishes_no_changes_for_a_deferred_sync():
    """A sync that exits 75 loads nothing, and `casefile changes` would show the changes of the
    last run loaded, the night before's, as tonight's."""
    steps = _workflow_steps()
    [sync] = [s for s in steps if "casefile --log-format json sync" in s]
    [changes] = [s for s in steps if "casefile changes" in s]
    step_id = re.search(r"^\s+id: (\S+)$", sync, re.M).group(1)
    assert 'echo "deferred=true" >> "$GITHUB_OUTPUT"' in sync
    assert re.search(rf"if: steps\.{re.escape(step_id)}\.outputs\.deferred != 'true'", changes), changes


def test_every_environment_variable_the_code_reads_is_in_configuration():
    """Someone writing a systemd unit or a cron line looks up the settings there."""
    section = README.split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    code = "\n".join(p.read_text("utf-8") for p in (ROOT / "pipeline").rglob("*.py"))
    read = set(re.findall(r"\b(CASEFILE_[A-Z][A-Z_]*[A-Z])\b", code)) - {"CASEFILE_FAILPOINT"}  # a test hook
    assert read and not {name for name in read if f"`{name}`" not in section}


def _workflow_steps() -> list[str]:
    workflow = re.search(r"^```yaml\n(.*?)^```", README, re.M | re.S).group(1)
    return re.split(r"^      - ", workflow.split("    steps:\n", 1)[1], flags=re.M)[1:]


def test_the_workflow_saves_the_raw_store_only_once_it_was_restored():
    """The save runs after a failed step (if: always()), so a job that failed before the restore
    (the install: `make` failing to reach PyPI) saved the checkout's data/raw/, with no run in it, as
    the newest cache, which the next night restored: every earlier run lost."""
    steps = _workflow_steps()
    [restore] = [s for s in steps if "actions/cache/restore@" in s]
    [save] = [s for s in steps if "actions/cache/save@" in s]
    step_id = re.search(r"^\s+id: (\S+)$", restore, re.M)
    assert step_id, "the restore step has no id to test its outcome by"
    condition = re.search(r"^\s+if: (.+)$", save, re.M).group(1)
    assert "always()" in condition
    assert re.search(rf"steps\.{re.escape(step_id.group(1))}\.outcome == 'success'", condition), condition
    assert steps.index(restore) < steps.index(save)
