"""Months of SYNTHETIC daily bulk runs, synced one by one as cron would, with a figure per day.

    python -m bench.days --scale 0.25 --days 120 --out /tmp/days
    python -m bench.days --scale 0.25 --days 120 --out /tmp/days-noprune --keep-days -1

Each day is made from the day before (``bench/generate.py``'s ``Synth``, SYNTHETIC data, never
Scryfall's): ``--share`` of the card objects and of the rulings edited (1 % unless told), a few
Oracle cards (each with one to three printings) and rulings added, a few removed, and new prices
and ranks on every card object. Day d's run is written under ``OUT/source/``, synced into
``OUT/data`` by ``python -m pipeline --data-dir OUT/data -q sync --offline RUN`` under
``faketime`` at 04:17 of day d (from 2026-01-01: the run ids, and so ``prune``'s ages, are a
day apart, as cron's are), then deleted. After each sync, ``prune --keep-days N`` as the
README's "Scheduling" advises (weekly, on day 7, 14, ...; ``--prune-every 1`` for daily, and
``--keep-days -1`` for no prune at all). Every ``--check-every`` days: ``doctor``, ``status``,
``search``, ``changes --since``, ``export`` (time and size) and ``rebuild`` into a copy of the
data folder, whose state tables are compared with the synced ones (EXCEPT ALL both ways), and
the warehouse copied into a new file (``COPY FROM DATABASE``: what its rows take without the
blocks DuckDB freed and keeps).

One JSON line a day goes to ``OUT/days.jsonl`` (and stdout): the sync's seconds, exit code, peak
RSS (``/usr/bin/time -v``) and build, the warehouse file and its .wal, ``data/cache/`` (bytes and
files), ``data/raw/`` (bytes and runs), and the rows of ``change_event``, ``retired_ruling``,
``sync_run`` and ``raw_document``. Needs ``faketime`` (Debian's package) and ``/usr/bin/time``.
A figure, not a test: nothing is asserted. Resumes after the last day of ``days.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path

import duckdb

from bench.generate import COLORS, LANGS, WORDS, Synth, sid

FIRST_DAY = date(2026, 1, 1)
COUNTED = ("change_event", "retired_ruling", "sync_run", "raw_document")
# the state tables a rebuild must give again (none has a column that names a run or a time)
STATE = ("card", "printing", "ruling", "card_ruling", "ruling_sighting", "ruling_translation", "query_card")


class Days(Synth):
    """A Synth whose ``next_day`` edits it as a day at Scryfall does."""

    def __init__(self, scale: float, seed: int = 7):
        super().__init__(scale, seed)
        self._oracle_index = {c["oracle_id"]: c for c in self.oracle}
        self.gone: set[int] = set()  # Oracle cards removed (their index in self.oracle)
        self.day = 1

    def next_day(self, share: float = 0.01) -> None:
        self.day += 1
        d = self.day
        rng = random.Random(f"days/{self.seed}/{d}")
        few = max(1, round(self.n_oracle * 0.0005))  # 17 a day at 1x
        for k in range(few):
            self._add_card(rng, d, k)
        self.objects.sort(key=lambda o: (o["name"], o["lang"] != "en", o["set"], o["collector_number"], o["lang"]))
        for k in range(max(1, few // 4)):
            self._remove_card(rng)
        for k in range(few):
            self._add_ruling(rng, d, k)
        for k in range(max(1, few // 4)):
            self._remove_ruling(rng)
        self.change(share=share, seed=10_000 + d, day=d)

    def _add_card(self, rng: random.Random, d: int, k: int) -> None:
        i = len(self.oracle)
        colors = sorted(rng.sample(COLORS, rng.choice([0, 1, 2])), key=COLORS.index)
        cmc = rng.randint(1, 6)
        card = {"oracle_id": sid(f"oracle/day{d}/{k}"),
                "name": f"Synthetic New {WORDS[k % len(WORDS)].title()} {d:04d}{k:03d}",
                "mana_cost": "{%d}" % max(0, cmc - len(colors)) + "".join("{%s}" % c for c in colors),
                "cmc": float(cmc), "colors": colors, "color_identity": colors, "type_line": "Creature — Synthetic",
                "oracle_text": rng.choice(self.oracle_templates).replace("Case", f"Synthetic new {d:04d}{k:03d}"),
                "layout": "normal", "rarity": rng.choice(["common", "uncommon", "rare"])}
        self.oracle.append(card)
        self.n_oracle += 1
        self._oracle_index[card["oracle_id"]] = card
        s = self.sets[-1 - d % 8]  # the newest sets get the new cards
        for p in range(rng.randint(1, 3)):
            lang = "en" if p == 0 else LANGS[p]
            self.objects.append(self._printing(card, s, str(50_000 + d * 100 + k), lang, f"day{d}/{k}/{lang}"))
        self.per_card.setdefault(i, [])

    def _remove_card(self, rng: random.Random) -> None:
        i = rng.choice([c for c in range(self.n_oracle) if c not in self.gone])
        self.gone.add(i)
        oid = self.oracle[i]["oracle_id"]
        self.objects = [o for o in self.objects if (o.get("oracle_id") or o["card_faces"][0]["oracle_id"]) != oid]

    def _add_ruling(self, rng: random.Random, d: int, k: int) -> None:
        r = len(self.rulings)
        self.rulings.append({"source": "wotc", "published_at": f"{FIRST_DAY + timedelta(days=d - 1)}",
                             "comment": f"{rng.choice(self.ruling_templates)} Synthetic ruling of day {d} number {k}."})
        # on a card added today half the time, else on any card still there
        new = [c for c in range(self.n_oracle - 3, self.n_oracle) if c not in self.gone]
        card = rng.choice(new) if new and rng.random() < 0.5 else rng.choice(
            [c for c in rng.sample(range(self.n_oracle), 20) if c not in self.gone] or new)
        self.per_card.setdefault(card, []).append(r)
        self.n_rulings = len(self.rulings)

    def _remove_ruling(self, rng: random.Random) -> None:
        cards = [c for c, rs in self.per_card.items() if rs and c not in self.gone]
        card = rng.choice(cards)
        self.per_card[card].remove(rng.choice(self.per_card[card]))

    def ruling_lines(self):
        """The base class's lines, less those of the Oracle cards removed."""
        gone = {self.oracle[i]["oracle_id"] for i in self.gone}
        for line in super().ruling_lines():
            if line[line.index('"oracle_id":"') + 13:][:36] not in gone:
                yield line


def du(path: Path) -> tuple[int, int]:
    """Bytes and files under path (0, 0 when it is missing)."""
    size = files = 0
    for root, _, names in os.walk(path):
        for name in names:
            try:
                size += os.lstat(os.path.join(root, name)).st_size
                files += 1
            except OSError:
                pass
    return size, files


def run(cmd: list[str], when: date, at: str = "04:17:00", out: Path | None = None) -> dict:
    """A casefile command under faketime at ``at`` of ``when``: seconds, exit code, peak RSS."""
    base = [sys.executable, "-m", "pipeline"]
    full = ["/usr/bin/time", "-v", "faketime", f"{when} {at}"] + base + cmd
    started = time.perf_counter()
    done = subprocess.run(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - started
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    err = "\n".join(line for line in done.stderr.splitlines() if not line.startswith("\t")
                    and not line.startswith("Command "))
    if out is not None:
        out.write_text(done.stdout)
    return {"s": round(seconds, 2), "rc": done.returncode, "rss_mb": round(int(rss.group(1)) / 1024) if rss else None,
            "stdout": done.stdout[-2000:], "stderr": err[-2000:]}


def counts(warehouse: Path) -> dict:
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        found = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in COUNTED}
        size = con.execute("SELECT used_blocks, free_blocks FROM pragma_database_size()").fetchone()
        found["used_blocks"], found["free_blocks"] = size
        return found
    finally:
        con.close()


def compare(a: Path, b: Path) -> dict:
    """Rows of each state table in one warehouse and not the other (EXCEPT ALL both ways)."""
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{a}' AS a (READ_ONLY)")
        con.execute(f"ATTACH '{b}' AS b (READ_ONLY)")
        diff = {}
        for table in STATE:
            one, two = (con.execute(f"SELECT count(*) FROM (FROM {x}.{table} EXCEPT ALL FROM {y}.{table})").fetchone()[0]
                        for x, y in (("a", "b"), ("b", "a")))
            if one or two:
                diff[table] = [one, two]
        return diff
    finally:
        con.close()


def checks(data: Path, when: date, since: date, work: Path) -> dict:
    """The commands a person runs now and then, and a rebuild of a copy compared with the synced warehouse."""
    d = ["--data-dir", str(data)]
    found = {}
    for name, cmd in (("doctor", d + ["doctor", "--format", "json"]), ("status", d + ["status"]),
                      ("search", d + ["search", "ember tide"]),
                      ("changes", d + ["changes", "--since", str(since)])):
        r = run(cmd, when, "06:00:00", out=work / f"{name}.out")
        found[name] = {"s": r["s"], "rc": r["rc"], "rss_mb": r["rss_mb"],
                       "bytes": (work / f"{name}.out").stat().st_size}
        if name == "doctor":
            try:
                found[name]["findings"] = [f"{x['level']}: {x['area']}: {x['finding'][:200]}"
                                           for x in json.loads(r["stdout"] or "[]") if x.get("level") != "ok"]
            except (json.JSONDecodeError, TypeError, KeyError):
                found[name]["raw"] = r["stdout"][-800:]
        if r["rc"] != 0:
            found[name]["stderr"] = r["stderr"]
    export = work / "export"
    shutil.rmtree(export, ignore_errors=True)
    r = run(d + ["export", "rulings", "--out", str(export)], when, "06:10:00")
    found["export"] = {"s": r["s"], "rc": r["rc"], "rss_mb": r["rss_mb"], "bytes": du(export)[0]}
    if r["rc"]:
        found["export"]["stderr"] = r["stderr"]
    copy = work / "rebuilt"
    shutil.rmtree(copy, ignore_errors=True)
    (copy / "warehouse").mkdir(parents=True)
    # the raw store linked (a rebuild only reads it), the cache copied (a rebuild may write it)
    subprocess.run(["cp", "-al", str(data / "raw"), str(copy / "raw")], check=True)
    if (data / "cache").exists():
        shutil.copytree(data / "cache", copy / "cache")
    r = run(["--data-dir", str(copy), "-q", "rebuild"], when, "06:20:00")
    found["rebuild"] = {"s": r["s"], "rc": r["rc"], "rss_mb": r["rss_mb"]}
    if r["rc"]:
        found["rebuild"]["stderr"] = r["stderr"]
    else:
        found["rebuild"]["differs"] = compare(data / "warehouse" / "casefile.duckdb",
                                              copy / "warehouse" / "casefile.duckdb")
    shutil.rmtree(copy)
    # what the warehouse's rows take in a new file (DuckDB reuses the blocks it frees, but never
    # gives them back): COPY FROM DATABASE, as a person would compact it
    fresh = work / "compacted.duckdb"
    fresh.unlink(missing_ok=True)
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{data / 'warehouse' / 'casefile.duckdb'}' AS w (READ_ONLY)")
        con.execute(f"ATTACH '{fresh}' AS f")
        con.execute("COPY FROM DATABASE w TO f")
    finally:
        con.close()
    found["compacted_mb"] = round(fresh.stat().st_size / 2**20, 1)
    fresh.unlink()
    return found


def table(log: Path, every: int) -> str:
    """A markdown table of days.jsonl: the first day, every ``every``-th day and the last."""
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    lines = ["| day | sync s | build | RSS MB | warehouse MB (copied) | cache MB (files) | raw MB (runs) | change_event | "
             "retired_ruling | rebuild s | doctor s | export s |", "|" + " --- |" * 12]
    for r in rows:
        if r["day"] == 1 or r["day"] % every == 0 or r is rows[-1]:
            c = r.get("checks", {})
            copied = f" ({c['compacted_mb']})" if "compacted_mb" in c else ""
            lines.append(f"| {r['day']} | {r['sync_s']} | {r.get('build')} | {r['rss_mb']} | {r['warehouse_mb']}{copied} | "
                         f"{r['cache_mb']} ({r['cache_files']}) | {r['raw_mb']:.0f} ({r['raw_runs']}) | "
                         f"{r.get('change_event')} | {r.get('retired_ruling')} | {c.get('rebuild', {}).get('s', '')} | "
                         f"{c.get('doctor', {}).get('s', '')} | {c.get('export', {}).get('s', '')} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.25)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--days", type=int, default=120)
    parser.add_argument("--share", type=float, default=0.01)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--keep-days", type=int, default=30, help="prune's --keep-days; -1: no prune")
    parser.add_argument("--prune-every", type=int, default=7)
    parser.add_argument("--check-every", type=int, default=10)
    parser.add_argument("--table", type=int, metavar="EVERY",
                        help="print OUT/days.jsonl as a table, a row every EVERY days, and stop")
    args = parser.parse_args()
    if args.table:
        print(table(args.out / "days.jsonl", args.table))
        return
    out, data, source = args.out, args.out / "data", args.out / "source"
    out.mkdir(parents=True, exist_ok=True)
    log = out / "days.jsonl"
    done = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    synth = Days(args.scale, args.seed)
    for _ in range(len(done) - 1):  # resume: the days already synced made again (their edits only)
        synth.next_day(args.share)
    warehouse = data / "warehouse" / "casefile.duckdb"
    for n in range(len(done) + 1, args.days + 1):
        if n > 1:
            synth.next_day(args.share)
        when = FIRST_DAY + timedelta(days=n - 1)
        stamp = when.strftime("%Y%m%d")
        started = time.perf_counter()
        run_dir = synth.write_run(source, f"{stamp}T000000.000000Z", stamp)
        made = time.perf_counter() - started
        sync = run(["--data-dir", str(data), "--log-format", "json", "-q", "sync", "--offline", str(run_dir)], when)
        shutil.rmtree(run_dir)
        row = {"day": n, "date": str(when), "generate_s": round(made, 1), "sync_s": sync["s"], "rc": sync["rc"],
               "rss_mb": sync["rss_mb"]}
        for line in sync["stdout"].splitlines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if event.get("event") == "summary":
                row["build"] = [load.get("build") for load in event.get("loads", [])] or event.get("build")
                row["timings_s"] = event.get("timings_s")
        if sync["rc"] or sync["stderr"].strip():  # a failure, or a warning
            row["stderr"] = sync["stderr"]
        if args.keep_days >= 0 and n % args.prune_every == 0:
            p = run(["--data-dir", str(data), "-q", "prune", "--keep-days", str(args.keep_days)], when, "05:30:00")
            row["prune"] = {"s": p["s"], "rc": p["rc"], "out": p["stdout"].strip()[-300:]}
        row["warehouse_mb"] = round(warehouse.stat().st_size / 2**20, 1) if warehouse.exists() else None
        wal = warehouse.with_name(warehouse.name + ".wal")
        row["wal_mb"] = round(wal.stat().st_size / 2**20, 2) if wal.exists() else 0
        cache, files = du(data / "cache")
        row["cache_mb"], row["cache_files"] = round(cache / 2**20, 1), files
        raw, _ = du(data / "raw")
        row["raw_mb"] = round(raw / 2**20, 1)
        row["raw_runs"] = sum(1 for p in (data / "raw").iterdir() if p.is_dir()) if (data / "raw").exists() else 0
        row["others"] = sorted(p.name for p in (data / "warehouse").iterdir()  # files left behind
                               if p.name not in ("casefile.duckdb", "casefile.duckdb.wal"))
        if warehouse.exists():
            row.update(counts(warehouse))
        if args.check_every and n % args.check_every == 0:
            row["checks"] = checks(data, when, FIRST_DAY + timedelta(days=n - 8), out)
        with log.open("a") as f:
            f.write(json.dumps(row) + "\n")
        print(json.dumps({k: v for k, v in row.items() if k not in ("timings_s",)}), flush=True)


if __name__ == "__main__":
    main()
