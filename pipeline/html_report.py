"""HTML pages for ``casefile report --format html``: the report tables and bar charts as inline SVG.

Pure: data in, one self-contained page out; no network, no JavaScript, no external files.
Every text that comes from the data is escaped with ``html.escape``; tables come from
``formats.render(..., "html")``, which escapes its cells the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from typing import Sequence

# Fills of the bars. Mana colors follow the five colors' usual card-frame hues; gold is the
# traditional frame color of multicolored cards. Rarities follow the expansion-symbol colors
# (black, silver, gold, orange-red), with purple and slate for Scryfall's "special" and "bonus".
COLOR_FILLS = {"colorless": "#a59e93", "white": "#efe6c0", "blue": "#2b6cb0", "black": "#3a3330",
               "red": "#c53030", "green": "#2f855a", "multicolored": "#c9a227", "unknown": "#d4d4d4"}
RARITY_FILLS = {"common": "#1a1a1a", "uncommon": "#8c9fab", "rare": "#b8962e", "mythic": "#d2521c",
                "special": "#6b46a1", "bonus": "#4a5a8a"}
SINGLE_FILL = "#4a6fa5"

# Layout of a chart, in SVG user units (pixels at 100 % zoom).
BAR_HEIGHT = 18
BAR_GAP = 6
BAR_AREA = 420
CHAR_WIDTH = 8  # a wide glyph of the 12 px sans-serif labels (capitals); sizes label column and legend
LEGEND_ROW = 20

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 72rem;
       padding: 0 1rem; color: #1a1a1a; }
h1 { font-size: 1.5rem; margin-bottom: .25rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
h3 { font-size: 1rem; }
p.scope { color: #555; margin-top: 0; }
p.note { background: #fff8e1; border-left: 4px solid #c9a227; padding: .5rem; }
table { border-collapse: collapse; font-size: .85rem; margin: .5rem 0 1rem; }
th, td { border: 1px solid #ddd; padding: .2rem .45rem; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
div.scroll { overflow-x: auto; }
svg { display: block; margin: .5rem 0 1.5rem; }
svg text { font-size: 12px; fill: #1a1a1a; }
footer { margin-top: 3rem; font-size: .8rem; color: #555; border-top: 1px solid #ddd; padding-top: .5rem; }
""".strip()


@dataclass
class BarChart:
    """Horizontal bars, one per label; several series stack left to right in a bar."""

    title: str
    series: list[tuple[str, str]]  # (name, fill)
    bars: list[tuple[str, list[float]]]  # (label, one value per series)
    unit: str = ""


@dataclass
class Section:
    title: str
    table_html: str  # a fragment from formats.render(..., "html"): already escaped
    charts: list[BarChart] = field(default_factory=list)
    text: str = ""  # a plain sentence under the title (escaped here)
    details: list[tuple[str, str]] = field(default_factory=list)  # (title, table fragment) after the charts


def _num(value: float) -> str:
    """Coordinates and values as short, stable text (no float noise such as 0.30000000000000004)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text if text not in ("-0", "") else "0"


def bar_chart_svg(chart: BarChart) -> str:
    label_width = CHAR_WIDTH * max([len(label) for label, _ in chart.bars] + [4]) + 12
    totals = [sum(values) for _, values in chart.bars]
    top = max(totals + [0])
    scale = BAR_AREA / top if top > 0 else 0.0
    legend = len(chart.series) > 1
    y0 = LEGEND_ROW + 4 if legend else 0
    legend_width = sum(30 + CHAR_WIDTH * len(name) for name, _ in chart.series) if legend else 0
    width = label_width + max(BAR_AREA + 60, legend_width)
    height = y0 + len(chart.bars) * (BAR_HEIGHT + BAR_GAP) + BAR_GAP
    parts = [f'<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="{escape(chart.title)}">',
             f"<title>{escape(chart.title)}</title>"]
    if legend:
        x = label_width
        for name, fill in chart.series:
            parts.append(f'<rect x="{x}" y="4" width="12" height="12" fill="{fill}" stroke="#666" stroke-width="0.5"/>')
            parts.append(f'<text x="{x + 16}" y="14">{escape(name)}</text>')
            x += 30 + CHAR_WIDTH * len(name)
    for i, ((label, values), total) in enumerate(zip(chart.bars, totals)):
        y = y0 + BAR_GAP + i * (BAR_HEIGHT + BAR_GAP)
        parts.append(f'<text x="{label_width - 6}" y="{y + 13}" text-anchor="end">{escape(label)}</text>')
        x = float(label_width)
        for (name, fill), value in zip(chart.series, values):
            if value <= 0:
                continue
            w = value * scale
            parts.append(f'<rect x="{_num(x)}" y="{y}" width="{_num(w)}" height="{BAR_HEIGHT}" fill="{fill}" '
                         f'stroke="#666" stroke-width="0.5"><title>{escape(label)}: {escape(name)} '
                         f'{_num(value)}{escape(chart.unit)}</title></rect>')
            x += w
        parts.append(f'<text x="{_num(x + 4)}" y="{y + 13}">{_num(total)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def page(title: str, scope_line: str, sections: Sequence[Section], notes: Sequence[str] = (),
         attribution: str = "") -> str:
    """One self-contained HTML page. ``title``, ``scope_line``, notes and attribution are plain text."""
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8"/>',
           '<meta name="viewport" content="width=device-width, initial-scale=1"/>',
           f"<title>{escape(title)}</title>", f"<style>\n{STYLE}\n</style>", "</head>", "<body>",
           f"<h1>{escape(title)}</h1>", f'<p class="scope">{escape(scope_line)}</p>']
    out += [f'<p class="note">{escape(note)}</p>' for note in notes]
    for section in sections:
        out.append("<section>")
        out.append(f"<h2>{escape(section.title)}</h2>")
        if section.text:
            out.append(f"<p>{escape(section.text)}</p>")
        out.append(f'<div class="scroll">\n{section.table_html.rstrip()}\n</div>')
        for chart in section.charts:
            out.append(f"<h3>{escape(chart.title)}</h3>")
            out.append(bar_chart_svg(chart))
        for title, table_html in section.details:
            out.append(f"<h3>{escape(title)}</h3>")
            out.append(f'<div class="scroll">\n{table_html.rstrip()}\n</div>')
        out.append("</section>")
    if attribution:
        out.append(f"<footer><p>{escape(attribution)}</p></footer>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"
