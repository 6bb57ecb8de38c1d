"""The ``casefile`` command: a click group whose commands map errors to documented exit codes.

Exit codes: 0 ok (also "no changes"), 1 bug, 2 usage, 65 bad source data, 69 source unavailable,
75 try again later (lock busy, rate limited, retries spent, warehouse busy), 78 configuration.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import signal
import sys
import threading
import traceback
from pathlib import Path

import click

from . import __version__, stop
from .config import ALL_SOURCES, BULK_MODES, DEFAULT_KEEP_DAYS, DEFAULT_QUERY, Settings, from_env
from .errors import (EXIT_BUG, EXIT_INTERRUPTED, EXIT_USAGE, Aborted, CasefileError, ConfigError, TryAgainLater,
                     UsageError, cut, printable, shown)
from .formats import DATASETS, EXPORT_FORMATS, FORMATS, REPORT_FORMATS, REPORT_NAMES, render

log = logging.getLogger("casefile")


class Context:
    def __init__(self, data_dir: Path | None, log_format: str, verbosity: int,
                 log_format_error: ConfigError | None = None):
        self.data_dir = data_dir
        self.log_format = log_format
        self.verbosity = verbosity
        self._log_format_error = log_format_error  # a CASEFILE_LOG_FORMAT that is none (logs: text)
        self._settings: Settings | None = None

    @property
    def settings(self) -> Settings:
        """The settings, read when the command first needs them, not before: a command's --help
        shows whatever the environment holds. A setting that cannot be used is a ConfigError here."""
        if self._settings is None:
            if self._log_format_error is not None:
                raise self._log_format_error
            self._settings = from_env(data_dir=self.data_dir)
        return self._settings

    @property
    def config_error(self) -> ConfigError | None:
        """The setting that cannot be used, for doctor to report in its --format, or None."""
        try:
            self.settings
        except ConfigError as exc:
            return exc
        return None

    def emit(self, text_line: str, payload: dict) -> None:
        """The command's result on stdout: one text line, or one JSON object with --log-format json."""
        if self.log_format == "json":
            from .logs import now_iso

            print_out(json.dumps({"ts": now_iso(), "level": "info", **payload}, ensure_ascii=False, default=str))
        else:
            print_out(text_line)


pass_ctx = click.make_pass_decorator(Context)


def print_out(text: str = "", nl: bool = True) -> None:
    """Print a command's output on stdout as it is. click.echo takes ANSI escape sequences out of
    what goes to a pipe or a file (``color``); those inside values are data, and print whole."""
    click.echo(text, nl=nl, color=True)


class Text(click.ParamType):
    """A text argument casefile hands to DuckDB or a URL (a query, words, a card name, a date): one
    holding bytes that are not UTF-8 (a Latin-1 terminal) is a usage error naming it, where DuckDB
    or the JSON writer would fail with a traceback. Paths are not Text: a file name may be any bytes."""

    name = "text"

    def convert(self, value, param, ctx):
        if isinstance(value, str):
            problem = _argument_problem(value)
            if problem:
                self.fail(problem, param, ctx)
            return _utf8_argument(value)
        return value


TEXT = Text()


class OutPath(click.Path):
    """``click.Path`` for a path casefile writes (``--out``, ``--data-dir``): an empty value (an
    unset shell variable) is refused, where ``Path("")`` would quietly mean the current folder;
    so is, for a file, a value written as a
    folder (``dir/``, ``dir/.``, ``..``), which ``Path`` would quietly turn into ``dir``."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and (not value or value.isspace()):  # " ": a folder named so, by mistake
            self.fail("give a path, not an empty string", param, ctx)
        if isinstance(value, str) and not self.dir_okay and (
                value in (".", "..") or value.endswith((os.sep, f"{os.sep}.", f"{os.sep}.."))):
            self.fail(f"{value!r} names a folder; give a file name", param, ctx)
        return super().convert(value, param, ctx)


class OfflineRun(click.ParamType):
    """``--offline``'s value: alone (``SAMPLE``), the bundled sample, given to ``sync`` as ``""``;
    else a recorded run folder. An explicitly empty one (``--offline "$RUN"`` with RUN unset) is
    refused, where it would quietly replay the sample. Not Text: a folder name may be any bytes."""

    name = "run_dir"
    SAMPLE = object()  # the flag's value: no argument string can be it

    def convert(self, value, param, ctx):
        if value is self.SAMPLE:
            return ""
        if isinstance(value, str) and not value:
            self.fail("give a run folder, not an empty string (--offline alone replays the bundled sample)",
                      param, ctx)
        return value


def format_option(default: str = "table", choices=FORMATS):
    return click.option("--format", "fmt", type=click.Choice(choices), default=default, show_default=True,
                        help="Output format of the rows.")


def _read(ctx: Context, read, *args):
    """``read(con, *args)`` on a read-only connection to the warehouse, closed after."""
    from .reader import open_reader

    con = open_reader(ctx.settings.warehouse_path, ctx.settings.reader_wait_s)
    try:
        return read(con, *args)
    finally:
        con.close()


def echo_rows(run, fmt: str, empty_table: str | None = None, spool: bool = False) -> None:
    """Print the rows of ``run()`` (its columns and an iterator of row batches, as
    ``reader.query_batches`` gives them) in ``fmt``, as they stream in. A table needs its column
    widths first: a table of more than one batch takes them in a first pass, then calls ``run``
    again, or, with ``spool`` (a statement that may not give the same rows twice: the user's, with
    its sequences, ``random()`` or ``now()``), keeps the batches in a temporary file and reads them
    back. ``empty_table``: what a table without rows prints instead of its header."""
    import itertools

    from .formats import render_stream, table_widths

    columns, batches = run()
    first = next(batches, [])  # an error of the query surfaces before anything is printed
    if fmt != "table":
        echo_chunks(render_stream(columns, itertools.chain([first], batches), fmt))
        return
    if not first and empty_table is not None:
        print_out(empty_table)
        return
    second = next(batches, None)
    if second is None:  # one batch, as most listings are: its widths, and no second run
        echo_chunks(render_stream(columns, [first], fmt, table_widths(columns, [first])))
        return
    if not spool:
        widths = table_widths(columns, itertools.chain([first, second], batches))
        columns, batches = run()
        echo_chunks(render_stream(columns, batches, fmt, widths))
        return
    import pickle
    import tempfile

    with tempfile.TemporaryFile(prefix="casefile-rows-") as held:
        def kept():
            for batch in itertools.chain([first, second], batches):
                pickle.dump(batch, held, protocol=pickle.HIGHEST_PROTOCOL)
                yield batch

        def read_back():
            while True:
                try:
                    yield pickle.load(held)
                except EOFError:
                    return

        widths = table_widths(columns, kept())
        held.seek(0)
        echo_chunks(render_stream(columns, read_back(), fmt, widths))


def echo_chunks(chunks, size: int = 1 << 16) -> None:
    """Print text chunks to stdout in writes of about ``size`` characters."""
    buffer: list[str] = []
    held = 0
    for chunk in chunks:
        buffer.append(chunk)
        held += len(chunk)
        if held >= size:
            print_out("".join(buffer), nl=False)
            buffer.clear()
            held = 0
    if buffer:
        print_out("".join(buffer), nl=False)


def write_output(path: Path, text: str) -> None:
    """Write a command's output to ``--out``: a temp file beside it, renamed into place."""
    import contextlib
    import os
    import stat

    from .config import expand_home
    from .export import first_missing, keep_access, refuse_a_file_on_the_way, remove_empty, sibling_stem

    path = expand_home(path)  # a value written as a folder was refused by OutPath
    for stream, err in ((sys.stdout, False), (sys.stderr, True)):
        if _same_file(path, stream):  # /dev/stdout of `>> log`: written on, as the shell opened it
            click.echo(text, nl=False, err=err, color=True)
            return
    try:
        before = os.stat(path)  # through any links: /dev/stdout is a link to the pipe or terminal
    except (OSError, ValueError):  # nothing there yet (or links in a loop, refused below)
        before = None
    mode = before.st_mode if before is not None else None
    if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        # a named pipe, /dev/null, /dev/stdout, a terminal: written into as it is, never replaced
        # by a file (a rename over /dev/null would put a file in its place)
        try:
            with open(path, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
        except OSError as exc:
            raise UsageError(f"--out {path}: cannot write it ({exc.strerror or exc})") from None
        return
    try:
        linked = path.is_symlink()  # a name too long, or a folder on the way that may not be searched
    except OSError as exc:
        raise UsageError(f"--out {path}: cannot write it ({exc.strerror or exc})") from None
    if linked:  # the file the link names is replaced, the link stays (as export does)
        try:
            target = path.resolve()
        except (RuntimeError, OSError) as exc:  # links in a loop (RuntimeError before Python 3.13)
            raise UsageError(f"--out {path}: cannot follow the link to a file ({exc})") from None
        if target.is_symlink():  # a loop that resolve() leaves as it is (Python 3.13 on)
            raise UsageError(f"--out {path}: the link leads to no file (links in a loop)")
        path = target
    try:  # the folders on the way are made, as export makes them; a file among them cannot hold one
        refuse_a_file_on_the_way(path)
        made = first_missing(path.parent)  # the folders this write makes, removed if it fails
    except OSError as exc:  # a folder on the way that may not be searched
        raise UsageError(f"--out {path}: cannot write it ({exc.strerror or exc})") from None
    tmp = path.with_name(f".{sibling_stem(path.name)}.{os.getpid()}.tmp")  # a long name would leave no room
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8", newline="")
        if mode is not None and stat.S_ISREG(mode):  # the file replaced keeps who may read it, and its group
            keep_access(tmp, before)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):  # no temp file, or no folder to hold one
            tmp.unlink()
        remove_empty(made)
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise TryAgainLater(f"--out {path}: cannot write it ({exc.strerror}); free some space and run "
                                "again (the file there before, if any, is unchanged)") from None
        if isinstance(exc, OSError):
            raise UsageError(f"--out {path}: cannot write it ({exc.strerror or exc})") from None
        raise


def _same_file(path: Path, stream) -> bool:
    """Whether ``path`` is the file ``stream`` writes to (a file a shell redirected it to, through
    /dev/stdout or by its own name): opened again for writing, it would be emptied or replaced."""
    try:
        there, ours = os.stat(path), os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return (there.st_dev, there.st_ino) == (ours.st_dev, ours.st_ino)


class _CtrlC(BaseException):
    """A command's KeyboardInterrupt, carried past click (which prints an empty line on stderr for
    one, a line that is no JSON object in a log of JSON lines) to ``_run``."""


# The group's own options, which go before the command, each as the hint shows it. Given after a
# command (`casefile status --data-dir /x`), click finds no such option there: the error says where
# it goes instead.
GLOBAL_OPTIONS = {"--data-dir": "--data-dir DIR", "--log-format": "--log-format FORMAT", "-v": "-v",
                  "--verbose": "--verbose", "-q": "-q", "--quiet": "--quiet"}


def _where_it_goes(ctx: click.Context, option: str) -> str | None:
    """The hint for ``option`` given after the command of ``ctx``: None unless it is one of the
    group's own options."""
    if option not in GLOBAL_OPTIONS:
        return None
    root = ctx.find_root()
    rest = ctx.command_path[len(root.command_path):].strip()
    if isinstance(ctx.command, click.Group):  # `casefile rules --data-dir /x ingest …`
        rest += " COMMAND"
    return f"{option} goes before the command: {root.command_path} {GLOBAL_OPTIONS[option]} {rest}"


def _global_option_in(args: list[str]) -> str | None:
    """The first of the group's own options among ``args`` (before a ``--``), by its name."""
    for arg in args:
        if arg == "--":
            return None
        name = arg.split("=", 1)[0] if arg.startswith("--") else arg
        if name in GLOBAL_OPTIONS:
            return name
    return None


class _SaysWhereGlobalOptionsGo:
    """A command (or the ``rules`` group) whose usage error for one of the group's own options
    given after it adds where the option goes: click's "No such option", or, for a command that
    takes unknown options as its arguments (``sql``), its "unexpected extra argument"."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        given = list(args)  # the parser consumes the list it is given
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            hint = _where_it_goes(ctx, exc.option_name)
            if hint is None:
                raise
            message = f"{exc.message.rstrip('.')}. {hint}"  # click 8.1's message has no full stop, 8.2's has
            raise click.NoSuchOption(exc.option_name, message, exc.possibilities, ctx) from None
        except click.UsageError as exc:
            if type(exc) is not click.UsageError or not ctx.ignore_unknown_options:
                raise
            option = _global_option_in(given)
            hint = None if option is None else _where_it_goes(ctx, option)
            if hint is None:
                raise
            raise click.UsageError(f"{exc.message.rstrip('.')}. {hint}", ctx=ctx) from None


class Command(_SaysWhereGlobalOptionsGo, click.Command):
    pass


class SubGroup(_SaysWhereGlobalOptionsGo, click.Group):
    command_class = Command


class Group(click.Group):
    """The command group. A reader of stdout that stops reading (``casefile sql … | head -1``)
    ends the command quietly with exit 0, as when the whole output fitted in the pipe before it
    closed, where click would exit 1 (here: a bug). A sync's network errors never come this far
    as a ``BrokenPipeError``: the HTTP client makes them connection errors."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            raise _CtrlC from exc
        except BrokenPipeError:
            import contextlib

            with contextlib.suppress(OSError, ValueError):  # what stdout still buffers goes nowhere at exit
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
                os.close(devnull)
            raise click.exceptions.Exit(0) from None

    command_class = Command
    group_class = SubGroup


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="casefile")
# --data-dir is checked here only for an empty value (exit 2, as for --out): a file where the
# folder should be is a setting to fix (exit 78, config.validate), not a usage error.
@click.option("--data-dir", type=OutPath(path_type=Path),
              help="Folder holding raw/ and warehouse/ [env CASEFILE_DATA_DIR; default: data/ of a source "
                   "checkout, else $XDG_DATA_HOME/casefile].")
# CASEFILE_LOG_FORMAT is read in main_group, not by click: a bad value there is a setting to fix
# (exit 78, naming the variable), where click would report the option, which was not given (exit 2).
@click.option("--log-format", type=click.Choice(["text", "json"], case_sensitive=False), default=None,
              help="Logs and summary as text, or as one JSON object per line [env CASEFILE_LOG_FORMAT; "
                   "default: text].")
@click.option("-v", "--verbose", count=True, help="More log output (-v progress of each step, -vv debug).")
@click.option("-q", "--quiet", is_flag=True, help="Only errors on stderr; no progress bars.")
@click.pass_context
def main_group(click_ctx: click.Context, data_dir: Path | None, log_format: str | None, verbose: int,
               quiet: bool) -> None:
    """casefile keeps a local DuckDB knowledge base of Magic: The Gathering card rulings.

    Typical use: `casefile sync` (from Scryfall) or `casefile sync --offline` (the bundled sample),
    then `casefile sql "SELECT ..."`.
    """
    from . import logs

    # The settings are read when the command needs them (Context.settings), so that its --help
    # needs none. doctor reports a setting that cannot be used as a failing finding, in the format
    # asked (a monitor reading --format json gets its list), as well as on stderr; others stop on it.
    problem = None
    try:
        if log_format is None:
            log_format = _log_format_of_env()
    except ConfigError as exc:
        log_format, problem = "text", exc
    verbosity = -1 if quiet else verbose
    logs.setup(log_format, verbosity)
    click_ctx.obj = Context(data_dir, log_format, verbosity, log_format_error=problem)


def _log_format_of_env() -> str:
    """CASEFILE_LOG_FORMAT, in any case; unset or empty: text."""
    value = os.environ.get("CASEFILE_LOG_FORMAT") or ""
    if value.strip().lower() not in ("text", "json", ""):
        raise ConfigError(f"CASEFILE_LOG_FORMAT must be text or json, got {value!r}")
    return value.strip().lower() or "text"


@main_group.command()
@click.option("--query", type=TEXT, default=None, help=f"Scryfall search query [default: {DEFAULT_QUERY}; offline: the recorded one].")
@click.option("--api-url", type=TEXT, default=None,
              help="Base URL of a Scryfall-compatible API [env CASEFILE_API_URL; default https://api.scryfall.com].")
@click.option("--offline", "offline", type=OfflineRun(), is_flag=False, flag_value=OfflineRun.SAMPLE, default=None,
              metavar="[RUN_DIR]",
              help="Replay a recorded run instead of the network: the bundled sample, or RUN_DIR.")
@click.option("--multilingual/--no-multilingual", default=None,
              help="Also fetch printings in other languages (Scryfall's include_multilingual).")
@click.option("--sources", type=TEXT, default=None, metavar="LIST",
              help="Comma-separated sources: api,wiki,listeblanche,scryfall-page [default live: "
                   "api,wiki,listeblanche; offline: those recorded].")
@click.option("--wiki-page", type=TEXT, default=None, metavar="URL",
              help="The MTG wiki page for this query [default: https://mtg.wiki/page/<Type> for a type: query].")
@click.option("--bulk", type=click.Choice(BULK_MODES), default="auto", show_default=True,
              help="Read Scryfall's bulk files instead of the search API: always, never, or whichever plan "
                   "costs less (auto). Bulk takes '*' or type:/set:/name: queries (offline: as recorded).")
@click.option("--plan", "plan_only", is_flag=True,
              help="Print the requests a sync would make and the time pacing alone requires; sync nothing.")
@pass_ctx
def sync(ctx: Context, query, api_url, offline, multilingual, sources, wiki_page, bulk, plan_only) -> None:
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
    from .lock import SyncLock

    settings = ctx.settings.with_overrides(api_url=api_url, wiki_page=wiki_page)
    if query is not None and not query.strip():  # an unset shell variable: not the default query
        raise click.BadParameter("give a Scryfall query, not an empty string", param_hint="--query")
    chosen = None
    if sources is not None:
        chosen = [s.strip() for s in sources.split(",") if s.strip()]
        if not chosen:  # "" or "," (an unset shell variable): not the default sources
            raise click.BadParameter(f"give one or more of {', '.join(ALL_SOURCES)}", param_hint="--sources")
        unknown = [s for s in chosen if s not in ALL_SOURCES]
        if unknown:
            raise click.BadParameter(f"unknown source(s) {cut(', '.join(unknown))}; choose from "
                                     f"{', '.join(ALL_SOURCES)}", param_hint="--sources")
    if plan_only:
        if offline is not None:
            raise click.BadParameter("--plan asks the live API; it does not go with --offline", param_hint="--plan")
        from .extract.plan import plan as make_plan

        info = make_plan(settings, query=query, include_multilingual=bool(multilingual), bulk=bulk, sources=chosen)
        if ctx.log_format == "json":
            ctx.emit("", {"event": "plan", **info})
            return
        print_out(f"plan for {info['query']} (--bulk {info['bulk']}): {info['chosen']}")
        for name, p in info["plans"].items():
            size = "size unknown" if p["bytes"] is None else \
                f"{'about ' if name == 'api' else ''}{p['bytes']:,} bytes"
            mark = "*" if name == info["chosen"] else " "
            print_out(f"{mark} {name}: {'' if p['exact'] else 'about '}{p['requests']:,} requests, {size}, "
                      f"at least {p['pacing_s']:,.1f} s of pacing")
            for line in p["detail"]:
                print_out(f"      {line}")
        if info["pages"] is not None:
            p = info["pages"]
            print_out(f"  then the pages ({', '.join(s for s in info['sources'] if s != 'api')}): at most "
                      f"{p['requests']:,} requests, at least {p['pacing_s']:,.1f} s of pacing after the API's")
            for line in p["detail"]:
                print_out(f"      {line}")
        for note in info["notes"]:
            print_out(f"  note: {note}")
        print_out(f"  fetched to plan: {', '.join(info['fetched']) or 'nothing'}")
        return
    # The lock is taken before the heavy imports, so a second sync says "busy" at once.
    with SyncLock(settings.lock_path):
        from .sync import sync as run_sync

        progress = logs.Progress(logs.wants_progress(ctx.log_format, ctx.verbosity))
        try:
            result = run_sync(settings, query=query, offline=offline, sources=chosen,
                              include_multilingual=multilingual, progress=progress, lock_held=True, bulk=bulk)
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
@click.option("--allow-empty", is_flag=True,
              help="When data/raw/ holds no complete run, replace the warehouse with an empty one "
                   "(refused without this flag while the warehouse holds runs).")
@pass_ctx
def rebuild(ctx: Context, allow_empty: bool) -> None:
    """Rebuild the warehouse from every complete run in data/raw/, with no network.

    \b
    Example:
      casefile rebuild
    """
    from . import logs, timing
    from .sync import rebuild as run_rebuild

    progress = logs.Progress(logs.wants_progress(ctx.log_format, ctx.verbosity))
    left_out: list[str] = []
    try:
        with timing.recording() as timings:
            results = run_rebuild(ctx.settings, progress=progress, left_out=left_out, allow_empty=allow_empty)
    finally:
        progress.close()
    last = results[-1].tables.get("_rows", {}) if results else {}
    text = (f"rebuilt {ctx.settings.warehouse_path} from {len(results)} run(s): "
            f"{last.get('card', 0)} cards, {last.get('ruling', 0)} rulings")
    if left_out:
        text += (f"; left out {len(left_out)} run(s) the old warehouse was loaded from that "
                 f"{ctx.settings.raw_dir} lacks: {', '.join(left_out)}")
    ctx.emit(text, {"event": "rebuild", "runs": [r.run_id for r in results], "rows": last,
                    "left_out": left_out, "timings_s": timing.rounded(timings)})


@main_group.command()
@click.option("--keep-days", type=click.IntRange(0, 36_500), default=DEFAULT_KEEP_DAYS, show_default=True,
              help="Keep every run younger than this many days.")
@click.option("--dry-run", is_flag=True, help="List what would be deleted; delete nothing.")
@pass_ctx
def prune(ctx: Context, keep_days: int, dry_run: bool) -> None:
    """Delete old runs of data/raw/ that the warehouse no longer needs.

    A run goes when it is older than --keep-days and later runs superseded it for everything it
    fetched (failed and unfinished runs too); current views and rules editions stay. The
    warehouse keeps its rows (documents a kept run holds too are pointed at its copy); a later
    rebuild replays the kept runs only, so its change history starts at the oldest of them.

    \b
    Examples:
      casefile prune --dry-run
      casefile prune --keep-days 7
    """
    from .formats import human_bytes
    from .prune import prune as run_prune

    result = run_prune(ctx.settings, keep_days, dry_run=dry_run)
    if dry_run and ctx.log_format != "json":
        for d in result.plan.decisions:
            if not d.keep:
                print_out(f"would delete {d.run.run_id} ({d.reason}, query {d.run.meta.get('query') or '-'})")
    kept = result.kept_by_reason()
    reasons = ", ".join(f"{n} {reason}" for reason, n in sorted(kept.items())) or "none"
    verb = "would delete" if dry_run else "deleted"
    text = (f"{verb} {len(result.plan.doomed)} run(s) older than {keep_days} day(s), "
            f"{human_bytes(result.bytes_freed)} {'to free' if dry_run else 'freed'}; "
            f"kept {sum(kept.values())} ({reasons})")
    if result.compacted is not None:
        text += (f"; warehouse compacted from {human_bytes(result.compacted[0])} "
                 f"to {human_bytes(result.compacted[1])}")
    ctx.emit(text, result.summary())


class NameValue(click.ParamType):
    """A ``NAME=VALUE`` of ``--param``, as (NAME, VALUE): split at the first ``=``, so a VALUE may
    hold one; an empty VALUE is the empty string."""

    name = "NAME=VALUE"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        name, equals, text = value.partition("=")
        if not equals:
            self.fail(f"{shown(value)} is not NAME=VALUE", param, ctx)
        if not name:
            self.fail(f"{shown(value)} has no NAME before its =", param, ctx)
        if name.startswith("$"):
            self.fail(f"{shown(value)}: write the NAME without its $ ({cut(name[1:] + '=' + text)})", param, ctx)
        for part, where in ((name, "its NAME"), (text, printable(name))):
            problem = _argument_problem(part)
            if problem:
                self.fail(f"{where}: {problem}", param, ctx)
        return _utf8_argument(name), _utf8_argument(text)


def _params(click_ctx: click.Context, param: click.Parameter, pairs) -> dict[str, str]:
    """The ``--param`` values as a dict; a NAME given twice (in any case: DuckDB's names are not
    case-sensitive) is a usage error, not the last one winning."""
    params: dict[str, str] = {}
    for name, value in pairs:
        if name.lower() in {given.lower() for given in params}:
            raise click.BadParameter(f"{name} is given twice", click_ctx, param)
        params[name] = value
    return params


def _sql_text(data: bytes, where: str) -> str:
    """The UTF-8 text of a query read from ``where`` (a byte order mark dropped)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{where}: {_not_utf8(data, exc)}") from None


def _not_utf8(data: bytes, exc: UnicodeDecodeError) -> str:
    return f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"


def _argument_problem(text: str) -> str | None:
    """What is wrong with an argument that holds bytes that are not UTF-8 (Python keeps them as
    surrogate escapes, which DuckDB cannot take), else None."""
    data = text.encode("utf-8", "surrogateescape")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _not_utf8(data, exc)
    return None


def _utf8_argument(text: str) -> str:
    """An argument that ``_argument_problem`` passed, as the UTF-8 text its bytes are: under a
    locale that is not UTF-8 (``LC_ALL=C`` with ``PYTHONUTF8=0``) Python keeps those bytes as
    surrogate escapes, which DuckDB cannot take; elsewhere the text as it is."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8")


def _read_stdin() -> str:
    try:
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # closed by the shell (`<&-`): Python has no sys.stdin
            raise OSError("there is none")
        data = stream.read()
    except (OSError, ValueError, RuntimeError) as exc:
        raise UsageError(f"stdin: cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    return _sql_text(data, "stdin")


def _read_query_file(path: str) -> str:
    """The text of ``--file``'s file, read by casefile (DuckDB's connection reads no file)."""
    from .config import expand_home

    where = f"--file {printable(path)}"
    try:
        data = expand_home(path).read_bytes()
    except FileNotFoundError:
        raise UsageError(f"{where}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{where}: a folder, not a file") from None
    except OSError as exc:
        raise UsageError(f"{where}: cannot read it ({exc.strerror or exc})") from None
    return _sql_text(data, where)


# A statement may open with a "--" comment: click would take it for an option it does not know.
@main_group.command(context_settings={"ignore_unknown_options": True})
@click.argument("statement", required=False)
@click.option("-f", "--file", "file", metavar="PATH",
              help="Read the SQL from this UTF-8 file (- for stdin) instead of STATEMENT.")
@click.option("--param", "params", metavar="NAME=VALUE", type=NameValue(), multiple=True, callback=_params,
              help="Give $NAME in the SQL this VALUE, as text (cast it where the SQL needs another type: "
                   "$NAME::INTEGER); a positional ? or $1 is NAME 1. Repeatable.")
@format_option()
@pass_ctx
def sql(ctx: Context, statement: str | None, file: str | None, params: dict[str, str], fmt: str) -> None:
    """Run SQL on a read-only connection to the warehouse and print the rows of its last statement
    (the ones before it run first, once: a TEMP table, a SET VARIABLE; settings such as TimeZone are
    locked). STATEMENT is the SQL, or - to read it from stdin; --file reads it from a file. Each
    statement takes the --param values it names.

    \b
    Examples:
      casefile sql "SELECT name, mana_cost FROM card ORDER BY name"
      casefile sql "SELECT count(*) FROM ruling" --format json
      casefile sql --file card-rulings.sql --param "card=Case of the Gorgon's Kiss" --param since=2024
      casefile sql - --param "card=Case of the Gorgon's Kiss" --param since=2024 < card-rulings.sql
    """
    from .reader import query_batches, run_all_but_last

    if statement is not None and file is not None:
        raise click.UsageError("give the SQL as STATEMENT or with --file, not both")
    if statement is None and file is None:
        raise click.UsageError("give the SQL as STATEMENT, as - to read it from stdin, or with --file PATH")
    if file == "":  # an unset shell variable: not the current folder
        raise click.BadParameter("give a path, not an empty string", param_hint="--file")
    if file == "-" or statement == "-":
        text, empty = _read_stdin(), "stdin holds no SQL statement"
    elif file is not None:
        text, empty = _read_query_file(file), f"--file {printable(file)} holds no SQL statement"
    else:
        problem = _argument_problem(statement)
        if problem:
            raise UsageError(f"STATEMENT: {problem}")
        text, empty = _utf8_argument(statement), "give a SQL statement"

    def show(con) -> None:
        last, values = run_all_but_last(con, text, params, empty)
        echo_rows(lambda: query_batches(con, last, values), fmt, spool=True)

    _read(ctx, show)


@main_group.command()
@click.argument("name", type=TEXT)
@click.option("--format", "fmt", type=click.Choice(("text",) + FORMATS), default="text", show_default=True,
              help="text: the card as a page; table/markdown/csv/json: its rulings as rows.")
@pass_ctx
def card(ctx: Context, name: str, fmt: str) -> None:
    """Show a card: cost, type, Oracle text, then every ruling with its date, source, where it was
    seen and its translations. NAME may be the start or a unique part of the name, or the card's
    Oracle id.

    \b
    Examples:
      casefile card "Case of the Shifting Visage"
      casefile card "shifting visage" --format json
    """
    from .lookup import show_card

    print_out(_read(ctx, show_card, name, fmt), nl=False)


@main_group.command()
@click.argument("text", type=TEXT)
@click.option("--limit", type=click.IntRange(1, 1000), default=20, show_default=True, help="At most this many rulings.")
@format_option()
@pass_ctx
def search(ctx: Context, text: str, limit: int, fmt: str) -> None:
    """Find rulings by words: every word must appear, whole or as a part of one (accents, case and
    quote style do not matter), in the English text or a translation; the whole phrase ranks first.

    \b
    Examples:
      casefile search "copiable values"
      casefile search "COPIABLE valués" --format json     # case and accents do not matter
    """
    from .lookup import search as run_search

    columns, rows = _read(ctx, run_search, text, limit)
    print_out(render(columns, rows, fmt), nl=False)


@main_group.command()
@click.option("--since", type=TEXT, default=None, metavar="RUN_ID|DATE",
              help="Changes of the runs after RUN_ID, or of the runs started on or after DATE (YYYY-MM-DD) "
                   "[default: the latest sync, not a rules ingest].")
@format_option()
@pass_ctx
def changes(ctx: Context, since: str | None, fmt: str) -> None:
    """What the syncs changed: cards added, removed or changed (errata), rulings added, removed,
    re-worded or given other cards, translations added, re-worded or removed.

    \b
    Examples:
      casefile changes
      casefile changes --since 2026-11-01 --format json
    """
    from .history import change_batches, runs_for, runs_that_changed_rows

    def show(con) -> None:  # streamed: the first sync of a bulk query lists every card and ruling
        runs = runs_for(con, since)
        changed = runs_that_changed_rows(con, runs) if fmt == "table" else 0
        none = (f"no change to cards, rulings or translations in {len(runs)} run(s); {changed} of them "
                "changed other rows (printings, sets, sightings, the order of a card's rulings)" if changed else
                f"no changes in {len(runs)} run(s)" if runs else
                "no runs" if since is not None else "no syncs yet")  # a rules ingest is no sync
        echo_rows(lambda: change_batches(con, runs), fmt, empty_table=none)

    _read(ctx, show)


def _findings_table(rows: list[tuple[str, str, str]]) -> str:
    """doctor's findings as a table whose long findings wrap onto lines of their own under the
    column, where a table cell is cut at TABLE_CELL_MAX: the runs and the remedy a finding names
    are read in full (a path or URL longer than a line stays whole)."""
    import textwrap

    from .formats import TABLE_CELL_MAX

    wrapped = [textwrap.wrap(" ".join(finding.split()), TABLE_CELL_MAX, break_long_words=False,
                             break_on_hyphens=False) or [""] for _, _, finding in rows]
    lines = render(["level", "area", "finding"], [(level, area, parts[0]) for (level, area, _), parts
                                                  in zip(rows, wrapped)], "table").split("\n")
    indent = " " * lines[1].rindex(" -")  # the separator line: the finding column starts after its last gap
    out = lines[:2]
    for line, parts in zip(lines[2:], wrapped):
        out += [line, *(indent + " " + part for part in parts[1:])]
    return "\n".join(out + lines[2 + len(rows):])


@main_group.command()
@click.option("--online", is_flag=True, help="Also ask each source one small question (network).")
@format_option()
@pass_ctx
def doctor(ctx: Context, online: bool, fmt: str) -> None:
    """Check the installation: config, lock, the raw store against its manifests (sha256), how the
    newest runs ended, the warehouse against sql/checks/, and with --online whether the sources
    answer. Exits non-zero when something fails (78 config, 65 data, 69 unreachable, 75 warehouse
    busy); runs that failed since the last complete one are a warning.

    \b
    Examples:
      casefile doctor
      casefile doctor --online --format json
    """
    from .doctor import Finding, diagnose, exit_code

    problem = ctx.config_error
    if problem is not None:  # nothing else can be checked without the settings
        _report(problem)
        findings = [Finding("fail", "config", str(problem), problem.exit_code)]
    else:
        findings = diagnose(ctx.settings, online=online)
    rows = [(f.level, f.area, f.message) for f in findings]
    print_out(_findings_table(rows) if fmt == "table" else render(["level", "area", "finding"], rows, fmt), nl=False)
    code = exit_code(findings)
    if code:
        click.get_current_context().exit(code)


@main_group.command()
@click.argument("number", type=TEXT)
@click.option("--edition", type=TEXT, default=None, metavar="DATE",
              help="The edition's effective date (YYYY-MM-DD) [default: the newest ingested].")
@click.option("--limit", type=click.IntRange(min=0), default=50, show_default=True,
              help="At most this many rulings and this many cards (0: all of them).")
@pass_ctx
def rule(ctx: Context, number: str, edition: str | None, limit: int) -> None:
    """Show a Comprehensive Rules rule: its text, parent and children, and the rulings and cards
    linked to it, each link saying how it was found.

    \b
    Examples:
      casefile rule 719.3a
      casefile rule 702.169 --limit 0     # every linked ruling and card
    """
    from .rules_view import rule_page

    def show(con) -> None:  # streamed: a rule of a warehouse of every card links hundreds of thousands
        echo_chunks(rule_page(con, number, edition, limit))

    _read(ctx, show)


@main_group.group()
def rules() -> None:
    """The Comprehensive Rules: ingest an edition, compare two editions.

    \b
    Examples:
      casefile rules ingest tests/fixtures/rules/cr_case_excerpt.txt
      casefile rules diff 2024-09-20 2024-11-08   # once both editions are ingested
    """


@rules.command("ingest")
@click.argument("source")
@pass_ctx
def rules_ingest(ctx: Context, source: str) -> None:
    """Ingest a Comprehensive Rules text file from SOURCE, a local path or an http(s) URL (Wizards
    publishes it as MagicCompRules <date>.txt). UTF-8, Windows-1252 or UTF-16 with its byte order
    mark, any line breaks. Each edition is kept by its effective date; rulings and cards are linked
    to the newest.

    \b
    Examples:
      casefile rules ingest tests/fixtures/rules/cr_case_excerpt.txt
      casefile rules ingest "https://media.wizards.com/2024/downloads/MagicCompRules 20240920.txt"
    """
    from .lock import SyncLock

    with SyncLock(ctx.settings.lock_path):
        from .sync import ingest_rules

        result = ingest_rules(ctx.settings, source, lock_held=True)
    rows = result.tables.get("_rows", {})
    text = (f"rules {result.run_id}: {rows.get('cr_edition', 0)} edition(s), {rows.get('cr_rule', 0)} rules, "
            f"{rows.get('ruling_rule', 0)} ruling links, {rows.get('card_rule', 0)} card links; "
            + ("no changes" if result.status == "no_changes" else
               f"+{result.inserted} ~{result.updated} -{result.removed} rows"))
    ctx.emit(text, {"event": "rules_ingest", "run_id": result.run_id, "outcome": result.status, "rows": rows})


@rules.command("diff")
@click.argument("old", type=TEXT)
@click.argument("new", type=TEXT)
@format_option()
@pass_ctx
def rules_diff(ctx: Context, old: str, new: str, fmt: str) -> None:
    """List the rules added, removed or re-worded between two ingested editions, named by their
    effective dates (the sample holds one: ingest another first). The table cuts two long texts
    from a little before their first difference; --format json gives them whole.

    \b
    Example:
      casefile rules diff 2024-09-20 2024-11-08   # once both editions are ingested
    """
    from .rules_view import diff_editions

    columns, rows = _read(ctx, diff_editions, old, new)
    if fmt == "table":
        rows = [(number, change, *_from_the_first_difference(old_text, new_text))
                for number, change, old_text, new_text in rows]
    print_out(render(columns, rows, fmt), nl=False)


def _from_the_first_difference(old: str | None, new: str | None) -> tuple[str | None, str | None]:
    """A re-worded rule's two texts for the table, which cuts a cell at TABLE_CELL_MAX: where they
    differ only beyond what a cell shows (both cells would read the same), each starts, after a
    "…", with the word about 20 characters before the first difference."""
    from .formats import TABLE_CELL_MAX

    if not old or not new or max(len(old), len(new)) <= TABLE_CELL_MAX:  # added, removed, or shown whole
        return old, new
    at = len(os.path.commonprefix([old, new]))
    if at <= TABLE_CELL_MAX - 30:  # the difference shows, with some of what follows it
        return old, new
    start = old.rfind(" ", 0, at - 20) + 1 or at - 20
    return "…" + old[start:], "…" + new[start:]


@main_group.command()
@click.argument("name", type=click.Choice(REPORT_NAMES))
@click.option("--query", type=TEXT, default=None,
              help="Report only the cards of this sync query [default: every card of the warehouse].")
@format_option(choices=REPORT_FORMATS)
@click.option("--out", type=OutPath(dir_okay=False, path_type=Path), default=None,
              help="Write the report to this file instead of stdout (folders on the way are made).")
@pass_ctx
def report(ctx: Context, name: str, query: str | None, fmt: str, out: Path | None) -> None:
    """Print a report on the warehouse: sets, colors, rulings, or all three.

    \b
    Reports:
      sets     per set: cards, printings, languages, rarities, colors, mana value, rulings
      colors   the MTG wiki's Statistics box: share of colorless, W, U, B, R, G cards
      rulings  rulings by source, date and cards sharing them; sightings by origin
    \b
    Examples:
      casefile report colors
      casefile report sets --format markdown
      casefile report all --format html --out casefile-report.html
    """
    from .report import run_report

    if query is not None and not query.strip():  # an unset shell variable: not every card
        raise click.BadParameter("give a sync query, not an empty string", param_hint="--query")
    text = run_report(ctx.settings.warehouse_path, name, fmt, query=query, wait_s=ctx.settings.reader_wait_s)
    if out is None:
        print_out(text, nl=False)
        return
    write_output(out, text)
    from .config import expand_home

    if _same_file(expand_home(out), sys.stdout):  # `--out /dev/stdout`: the report is the output, alone
        return
    written = printable(str(out))  # a file name may hold bytes that are not UTF-8, which no output line can carry
    ctx.emit(f"wrote {written} ({name} report, {fmt})", {"event": "report", "report": name, "format": fmt,
                                                       "out": written, "bytes": len(text.encode("utf-8"))})


@main_group.command()
@click.argument("dataset", type=click.Choice(DATASETS))
@click.option("--format", "fmt", type=click.Choice(EXPORT_FORMATS), default="csv", show_default=True,
              help="File format of the dataset files.")
@click.option("--out", type=OutPath(file_okay=False, path_type=Path), required=True,
              help="Folder to write (.. and links followed): created, or replaced whole if it holds a "
                   "previous export and nothing else.")
@pass_ctx
def export(ctx: Context, dataset: str, fmt: str, out: Path) -> None:
    """Export the rulings dataset to a folder: data files, datasheet.md and manifest.json.

    \b
    Examples:
      casefile export rulings --out exports/rulings
      casefile export rulings --format parquet --out exports/rulings-parquet
    """
    from .export import export_rulings

    result = export_rulings(ctx.settings.warehouse_path, out, fmt, wait_s=ctx.settings.reader_wait_s)
    text = (f"exported {dataset} to {result.out} ({fmt}): {result.rows['rulings']} rulings, "
            f"{result.rows['card_rulings']} card-ruling links; from run {result.run_id}")
    ctx.emit(text, result.summary())


@main_group.command()
@format_option()
@pass_ctx
def status(ctx: Context, fmt: str) -> None:
    """Show paths, runs in the raw store, and row counts of the warehouse. --format csv prints the
    row counts alone, as one CSV table; --format json prints everything as one object.

    \b
    Examples:
      casefile status
      casefile status --format csv
    """
    from .formats import human_bytes
    from .status import collect_status

    info = collect_status(ctx.settings)
    if ctx.log_format == "json":  # one object on one line, dated as every result line
        ctx.emit("", {"event": "status", **info})
        return
    if fmt == "json":  # for a person, or a script reading the one object: indented
        print_out(json.dumps(info, ensure_ascii=False, indent=2, default=str))
        return
    tables = sorted(info["warehouse"].get("tables", {}).items())
    if fmt == "csv":  # one CSV table, for scripts: the row counts (the rest is in --format json)
        print_out(render(["table", "rows"], tables, fmt), nl=False)
        return
    facts = [("data dir", info["paths"]["data_dir"]),
             ("raw store", f"{info['paths']['raw_dir']} ({info['runs']['complete']} complete, "
                           f"{info['runs']['failed']} failed, {info['runs']['incomplete']} incomplete; "
                           f"{human_bytes(info['runs']['bytes'])})"
                           + (f"; {info['runs']['problem']} (see casefile doctor)" if info["runs"]["problem"] else "")),
             ("warehouse", info["paths"]["warehouse"] + ("" if info["warehouse"]["exists"] else " (not built yet)"))]
    if info["warehouse"].get("last_run"):
        lr = info["warehouse"]["last_run"]
        facts.append(("last run", f"{lr['run_id']} {lr['mode']} {lr['status']} query={lr['query'] or '-'}"))
    pid = info["sync_running_pid"]
    if pid is not None:  # a sync, rebuild, prune or rules ingest holds the lock: what this shows may change under it
        from .lock import HOLDERS

        facts.append(("running", f"a {HOLDERS} holds the lock" + (f" (pid {pid})" if pid > 0 else "")))
    for label, value in facts:  # markdown: a list, so that the lines do not run together
        print_out(f"- {label}: {value}" if fmt == "markdown" else f"{label + ':':<11} {value}")
    if tables:
        print_out("")
        print_out(render(["table", "rows"], tables, fmt), nl=False)
    if info["recent_runs"]:
        print_out("")
        cols = ["run_id", "mode", "status", "loaded", "query"]
        print_out(render(cols, [[r[c] for c in cols] for r in info["recent_runs"]], fmt), nl=False)


def main(argv: list[str] | None = None) -> int:
    """Runs the group and turns errors into exit codes (the `casefile` script runs it through
    ``entry.run``). Ctrl-C ends any command with exit 130, SIGTERM with 75: inside a DuckDB query,
    which then fails with an error of its own, or during an import, where the handlers
    (``stop.on_ctrl_c``, ``stop.on_sigterm``) only note it and the command stops at its next
    check, here at the latest."""
    _ARGV[:] = sys.argv[1:] if argv is None else argv
    _utf8_output()
    on_main_thread = threading.current_thread() is threading.main_thread()
    previous = ((signal.signal(signal.SIGINT, stop.on_ctrl_c), signal.signal(signal.SIGTERM, stop.on_sigterm))
                if on_main_thread else None)
    if previous is None or previous[0] is not stop.on_ctrl_c:  # else entry.run took the signals first:
        stop.clear()                                              # a stop noted during the start-up stands
    try:
        if stop.requested():
            return exit_interrupted() if stop.interrupted() else exit_stopped()
        code = _run(argv)
        if stop.interrupted() and code != EXIT_INTERRUPTED:  # noted during an import, not raised since
            return exit_interrupted()
        if stop.requested() and not stop.interrupted() and code != Aborted.exit_code:  # the same, SIGTERM
            return exit_stopped()
        return code
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous[0])
            signal.signal(signal.SIGTERM, previous[1])
        stop.clear()


def _utf8_output() -> None:
    """stdout and stderr in UTF-8 whatever the locale, as the files casefile writes are, when they
    go to a pipe or a file: a stream in Latin-1 or Windows-1252 failed on a ruling's first curly
    quote with a traceback, and a log taking both streams held two encodings. A terminal keeps its
    encoding; a character it has no byte for is written as Python writes it on stderr (``\\u2019``)."""
    import codecs
    import io

    for stream in (sys.stdout, sys.stderr):
        if not isinstance(stream, io.TextIOWrapper):  # None (closed by the shell), or a test's capture
            continue
        try:
            if codecs.lookup(stream.encoding).name == "utf-8":
                continue
            if stream.isatty():
                stream.reconfigure(errors="backslashreplace")
            else:
                stream.reconfigure(encoding="utf-8")
        except (LookupError, OSError, ValueError):  # an encoding Python does not know, a closed stream
            continue


def exit_interrupted(said: str | None = None) -> int:
    """Say that Ctrl-C stopped the command (and ``said``, what the stop had to say); 130."""
    _say_error(EXIT_INTERRUPTED, "Interrupted", said or "interrupted",
               f"casefile: interrupted: {said}" if said else "casefile: interrupted")
    return EXIT_INTERRUPTED


def exit_stopped() -> int:
    """Say that SIGTERM stopped the command outside a block that says more; 75."""
    _say_error(Aborted.exit_code, "Aborted", stop.STOPPED_MESSAGE, f"casefile: error: {stop.STOPPED_MESSAGE}")
    return Aborted.exit_code


def _run(argv: list[str] | None) -> int:
    try:
        returned = main_group.main(args=argv, prog_name="casefile", standalone_mode=False)
        if isinstance(returned, int) and not isinstance(returned, bool):  # ctx.exit(code) inside a command
            return returned
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort as exc:  # click's word for a KeyboardInterrupt (casefile asks no questions)
        if isinstance(exc.__cause__, EOFError):  # click makes an EOFError an Abort too: no Ctrl-C, a failure
            return _failed(exc.__cause__)
        return exit_interrupted()
    except click.ClickException as exc:
        code = EXIT_USAGE if exc.exit_code == 2 else exc.exit_code
        if _json_errors():  # a log of JSON lines gets one more, not click's usage text
            _say_error(code, "UsageError", exc.format_message(), "")
        else:
            exc.show()
        return code
    except CasefileError as exc:
        if stop.by_ctrl_c(exc):  # Ctrl-C, with what a stop had to say
            return exit_interrupted(str(exc) if isinstance(exc, Aborted) else None)  # (a run loaded all the same)
        if stop.requested() and not isinstance(exc, Aborted):  # what a command made of an interrupted query
            return exit_stopped()
        _report(exc)
        return exc.exit_code
    except (KeyboardInterrupt, _CtrlC):
        return exit_interrupted()
    except Exception as exc:
        return _failed(exc)
    return 0


def _failed(exc: BaseException) -> int:
    """What an exception no command handled ends in: Ctrl-C or SIGTERM, a warehouse damaged or
    unwritable, memory, or else a bug, reported with its traceback; the exit code."""
    if stop.by_ctrl_c(exc):  # DuckDB's "Query interrupted", or what code made of it
        return exit_interrupted()
    if stop.requested():  # the same after SIGTERM
        return exit_stopped()
    damaged = _damaged_warehouse(exc)
    if damaged is not None:  # found by a query after the file opened (the writer's, or prune's)
        _report(damaged)
        return damaged.exit_code
    unwritable = _unwritable_warehouse(exc)
    if unwritable is not None:  # a full disk, or a folder casefile may not write
        _report(unwritable)
        return unwritable.exit_code
    if _out_of_memory(exc):
        _report(ConfigError(f"DuckDB ran out of memory ({str(exc).splitlines()[0]}); raise "
                            "CASEFILE_MEMORY_LIMIT_MB (0: DuckDB's default) or free memory. "
                            "A sync stopped so keeps the run it fetched; the next sync loads it."))
        return ConfigError.exit_code
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):  # the output's disk is full
        _report(TryAgainLater(f"cannot write the output ({exc.strerror}); free some space and run again"))
        return TryAgainLater.exit_code
    try:
        if _json_errors():
            click.echo(json.dumps(_error_line(EXIT_BUG, exc.__class__.__name__,
                                              f"internal error (a bug; please report it with this traceback): {exc}",
                                              traceback="".join(traceback.format_exception(exc))),
                                  ensure_ascii=False), err=True)
        else:
            click.echo("casefile: internal error (a bug; please report it with this traceback):", err=True)
            traceback.print_exception(exc)
    except OSError:  # a stderr that cannot be written
        pass
    return EXIT_BUG


def _out_of_memory(exc: Exception) -> bool:
    import duckdb

    return isinstance(exc, duckdb.OutOfMemoryException)


def _damaged_warehouse(exc: Exception) -> ConfigError | None:
    import duckdb

    from .errors import damaged_warehouse

    return damaged_warehouse(exc) if isinstance(exc, duckdb.Error) else None


def _unwritable_warehouse(exc: Exception) -> CasefileError | None:
    import duckdb

    from .errors import unwritable_warehouse

    return unwritable_warehouse(exc) if isinstance(exc, duckdb.Error) else None


_ARGV: list[str] = []  # the arguments main() was given, for an error found before --log-format was read


def _json_errors() -> bool:
    """Whether errors go to stderr as JSON objects: --log-format json (or CASEFILE_LOG_FORMAT=json)
    was taken, or, for an error found before the group had read its options (an unknown option or
    command), is asked for on the command line or in the environment."""
    from . import logs

    if logs.is_json():
        return True
    chosen = (os.environ.get("CASEFILE_LOG_FORMAT") or "").strip()
    for i, arg in enumerate(_ARGV):
        if arg == "--":
            break
        given = _ARGV[i + 1] if arg == "--log-format" and i + 1 < len(_ARGV) else \
            arg.split("=", 1)[1] if arg.startswith("--log-format=") else None
        if given is not None and given.lower() in ("json", "text"):  # a value that is none (the error) leaves it
            chosen = given
    return chosen.lower() == "json"


def _say_error(code: int, kind: str, message: str, text: str, run_id: str | None = None) -> None:
    """One error line on stderr: a JSON object with --log-format json, else ``text`` (if any). A
    stderr that cannot be written (a full disk under the log, a reader gone) leaves the exit code
    as it is: there is nothing more to say it with."""
    try:
        if _json_errors():
            more = {"run_id": run_id} if run_id else {}  # a sync's run, kept in data/raw/ marked failed
            click.echo(json.dumps(_error_line(code, kind, message, **more), ensure_ascii=False), err=True)
        elif text:
            click.echo(text, err=True)
    except OSError:
        pass


def _error_line(code: int, kind: str, message: str, **more) -> dict:
    """An error's JSON object, with the time and level a log line has."""
    from .logs import now_iso

    return {"ts": now_iso(), "level": "error", "event": "error", "exit_code": code, "error": kind,
            "message": message, **more}


def _report(exc: CasefileError) -> None:
    logging.getLogger("casefile").debug("error", exc_info=True)
    _say_error(exc.exit_code, exc.__class__.__name__, str(exc), f"casefile: error: {exc}",
               run_id=getattr(exc, "run_id", None))


if __name__ == "__main__":
    sys.exit(main())
