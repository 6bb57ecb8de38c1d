"""The ``casefile`` command: a click group whose commands map errors to documented exit codes.

Exit codes: 0 ok (also "no changes"), 1 bug, 2 usage, 65 bad source data, 69 source unavailable,
75 try again later (lock busy, rate limited, retries spent, warehouse busy), 78 configuration.
"""

from __future__ import annotations

import json
import logging
import sys
import traceback
from pathlib import Path

import click

from . import __version__
from .config import DEFAULT_QUERY, Settings, from_env
from .errors import EXIT_BUG, EXIT_USAGE, CasefileError
from .formats import FORMATS, render

log = logging.getLogger("casefile")


class Context:
    def __init__(self, settings: Settings, log_format: str, verbosity: int):
        self.settings = settings
        self.log_format = log_format
        self.verbosity = verbosity

    def emit(self, text_line: str, payload: dict) -> None:
        """The command's result on stdout: one text line, or one JSON object with --log-format json."""
        if self.log_format == "json":
            click.echo(json.dumps(payload, ensure_ascii=False, default=str))
        else:
            click.echo(text_line)


pass_ctx = click.make_pass_decorator(Context)


def format_option(default: str = "table"):
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default=default, show_default=True,
                        help="Output format of the rows.")


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="casefile")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), envvar="CASEFILE_DATA_DIR",
              help="Folder holding raw/ and warehouse/ [env CASEFILE_DATA_DIR; default: data/ of the checkout].")
@click.option("--log-format", type=click.Choice(["text", "json"]), default="text", show_default=True,
              envvar="CASEFILE_LOG_FORMAT", help="Logs and summary as text, or as one JSON object per line.")
@click.option("-v", "--verbose", count=True, help="More log output (-v progress of each step, -vv debug).")
@click.option("-q", "--quiet", is_flag=True, help="Only errors on stderr; no progress bars.")
@click.pass_context
def main_group(click_ctx: click.Context, data_dir: Path | None, log_format: str, verbose: int, quiet: bool) -> None:
    """casefile keeps a local DuckDB knowledge base of Magic: The Gathering card rulings.

    Typical use: `casefile sync` (from Scryfall) or `casefile sync --offline` (the bundled sample),
    then `casefile sql "SELECT ..."`.
    """
    from . import logs

    verbosity = -1 if quiet else verbose
    logs.setup(log_format, verbosity)
    settings = from_env()
    if data_dir is not None:
        settings = settings.with_overrides(data_dir=data_dir)
    click_ctx.obj = Context(settings, log_format, verbosity)


@main_group.command()
@click.option("--query", default=None, help=f"Scryfall search query [default: {DEFAULT_QUERY}; offline: the recorded one].")
@click.option("--api-url", envvar="CASEFILE_API_URL", default=None,
              help="Base URL of a Scryfall-compatible API [env CASEFILE_API_URL; default https://api.scryfall.com].")
@click.option("--offline", "offline", is_flag=False, flag_value="", default=None, metavar="[RUN_DIR]",
              help="Replay a recorded run instead of the network: the bundled sample, or RUN_DIR.")
@click.option("--multilingual/--no-multilingual", default=None,
              help="Also fetch printings in other languages (Scryfall's include_multilingual).")
@click.option("--sources", default=None, metavar="LIST",
              help="Comma-separated sources: api,wiki,listeblanche,scryfall-page [default: api live; "
                   "offline: those recorded].")
@click.option("--bulk", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Read Scryfall's bulk files instead of the search API: always, never, or whichever plan "
                   "costs less (auto). Bulk takes '*' or type:/set:/name: queries (offline: as recorded).")
@click.option("--plan", "plan_only", is_flag=True,
              help="Print the requests a sync would make and the time pacing alone requires; sync nothing.")
@pass_ctx
def sync(ctx: Context, query, api_url, offline, multilingual, sources, bulk, plan_only) -> None:
    """Fetch cards and rulings into data/raw/ and load them into the warehouse.

    \b
    Examples:
      casefile sync                               # live, type:"Case", from api.scryfall.com
      casefile sync --offline                     # replay the bundled sample, no network
      casefile sync --query 'set:mkm' --multilingual
      casefile sync --query '*' --bulk always     # all of Scryfall, from its bulk files
      casefile sync --query '*' --plan            # what that would request, and how long pacing takes
    """
    from . import logs
    from .sync import ALL_SOURCES, sync as run_sync

    settings = ctx.settings.with_overrides(api_url=api_url)
    chosen = None
    if sources:
        chosen = [s.strip() for s in sources.split(",") if s.strip()]
        unknown = [s for s in chosen if s not in ALL_SOURCES]
        if unknown:
            raise click.BadParameter(f"unknown source(s) {', '.join(unknown)}; choose from {', '.join(ALL_SOURCES)}",
                                     param_hint="--sources")
    if plan_only:
        if offline is not None:
            raise click.BadParameter("--plan asks the live API; it does not go with --offline", param_hint="--plan")
        from .sync import plan as make_plan

        info = make_plan(settings, query=query, include_multilingual=bool(multilingual), bulk=bulk)
        if ctx.log_format == "json":
            click.echo(json.dumps({"event": "plan", **info}, ensure_ascii=False))
            return
        click.echo(f"plan for {info['query']} (--bulk {info['bulk']}): {info['chosen']}")
        for name, p in info["plans"].items():
            size = "size unknown" if p["bytes"] is None else \
                f"{'about ' if name == 'api' else ''}{p['bytes']:,} bytes"
            mark = "*" if name == info["chosen"] else " "
            click.echo(f"{mark} {name}: {'' if p['exact'] else 'about '}{p['requests']:,} requests, {size}, "
                       f"at least {p['pacing_s']:,.1f} s of pacing")
            for line in p["detail"]:
                click.echo(f"      {line}")
        for note in info["notes"]:
            click.echo(f"  note: {note}")
        click.echo(f"  fetched to plan: {', '.join(info['fetched']) or 'nothing'}")
        return
    progress = logs.Progress(logs.wants_progress(ctx.log_format, ctx.verbosity))
    try:
        result = run_sync(settings, query=query, offline=offline, sources=chosen,
                          include_multilingual=multilingual, progress=progress, bulk=bulk)
    finally:
        progress.close()
    rows = result.counts
    changes = ("no changes" if result.load.status == "no_changes"
               else f"+{result.load.inserted} ~{result.load.updated} -{result.load.removed} rows")
    text = (f"sync {result.run_id} ({result.mode}): {result.requests} requests, {result.bytes:,} bytes; "
            f"{rows.get('card', 0)} cards, {rows.get('printing', 0)} printings, {rows.get('ruling', 0)} rulings, "
            f"{rows.get('card_ruling', 0)} card-ruling links; {changes}")
    ctx.emit(text, result.summary())


@main_group.command()
@pass_ctx
def rebuild(ctx: Context) -> None:
    """Rebuild the warehouse from every complete run in data/raw/, with no network.

    \b
    Example:
      casefile rebuild
    """
    from .sync import rebuild as run_rebuild

    results = run_rebuild(ctx.settings)
    last = results[-1].tables.get("_rows", {}) if results else {}
    text = (f"rebuilt {ctx.settings.warehouse_path} from {len(results)} run(s): "
            f"{last.get('card', 0)} cards, {last.get('ruling', 0)} rulings")
    ctx.emit(text, {"event": "rebuild", "runs": [r.run_id for r in results], "rows": last})


@main_group.command()
@click.argument("statement")
@format_option()
@pass_ctx
def sql(ctx: Context, statement: str, fmt: str) -> None:
    """Run one SQL statement on a read-only connection to the warehouse.

    \b
    Examples:
      casefile sql "SELECT name, mana_cost FROM card ORDER BY name"
      casefile sql "SELECT count(*) FROM ruling" --format json
    """
    from .reader import open_reader, query

    con = open_reader(ctx.settings.warehouse_path, ctx.settings.reader_wait_s)
    try:
        columns, rows = query(con, statement)
    finally:
        con.close()
    click.echo(render(columns, rows, fmt), nl=False)


@main_group.command()
@format_option()
@pass_ctx
def status(ctx: Context, fmt: str) -> None:
    """Show paths, runs in the raw store, and row counts of the warehouse.

    \b
    Example:
      casefile status
    """
    from .status import collect_status

    info = collect_status(ctx.settings)
    if ctx.log_format == "json" or fmt == "json":
        click.echo(json.dumps(info, ensure_ascii=False, indent=2, default=str))
        return
    click.echo(f"data dir:   {info['paths']['data_dir']}")
    click.echo(f"raw store:  {info['paths']['raw_dir']} ({info['runs']['complete']} complete, "
               f"{info['runs']['failed']} failed, {info['runs']['incomplete']} incomplete)")
    click.echo(f"warehouse:  {info['paths']['warehouse']}"
               + ("" if info["warehouse"]["exists"] else " (not built yet)"))
    if info["warehouse"].get("last_run"):
        lr = info["warehouse"]["last_run"]
        click.echo(f"last run:   {lr['run_id']} {lr['mode']} {lr['status']} query={lr['query']}")
    if info["warehouse"].get("tables"):
        click.echo("")
        tables = info["warehouse"]["tables"]
        click.echo(render(["table", "rows"], sorted(tables.items()), fmt), nl=False)
    if info["recent_runs"]:
        click.echo("")
        cols = ["run_id", "mode", "status", "loaded", "query"]
        click.echo(render(cols, [[r[c] for c in cols] for r in info["recent_runs"]], fmt), nl=False)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script: runs the group and turns errors into exit codes."""
    try:
        main_group.main(args=argv, prog_name="casefile", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("casefile: aborted", err=True)
        return 130
    except click.ClickException as exc:
        exc.show()
        return EXIT_USAGE if exc.exit_code == 2 else exc.exit_code
    except CasefileError as exc:
        _report(exc)
        return exc.exit_code
    except KeyboardInterrupt:
        click.echo("casefile: interrupted", err=True)
        return 130
    except Exception:  # a bug: show everything needed to report it
        click.echo("casefile: internal error (a bug; please report it with this traceback):", err=True)
        traceback.print_exc()
        return EXIT_BUG
    return 0


def _report(exc: CasefileError) -> None:
    from . import logs

    logging.getLogger("casefile").debug("error", exc_info=True)
    if logs.is_json():
        click.echo(json.dumps({"event": "error", "exit_code": exc.exit_code, "error": exc.__class__.__name__,
                               "message": str(exc)}, ensure_ascii=False), err=True)
    else:
        click.echo(f"casefile: error: {exc}", err=True)


if __name__ == "__main__":
    sys.exit(main())
