"""The frame every page shares: the document with its inline style sheet, sections and tables.

One style sheet for the run page and the calibration page: readable at 1280 px, one column on a
phone (wide tables scroll sideways inside their box rather than the page), and printable (the
navigation stays off paper, figures are not split across pages).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from html import escape
from typing import Any

STYLE = """
:root { --ink: #1d2330; --muted: #5b6475; --line: #d9dde5; --band: #f4f6f9; --accent: #1f5fbf; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       color: var(--ink); background: #fff; }
header { padding: 1rem 1.5rem 0.5rem; border-bottom: 1px solid var(--line); }
header h1 { margin: 0 0 0.2rem; font-size: 1.5rem; overflow-wrap: anywhere; }
.status { margin: 0 0 0.5rem; color: var(--muted); }
nav { display: flex; flex-wrap: wrap; gap: 0.3rem 1rem; font-size: 0.95rem; }
nav a, a { color: var(--accent); }
main { max-width: 1240px; margin: 0 auto; padding: 0 1.5rem 2rem; }
section { margin-top: 1.6rem; }
h2 { font-size: 1.2rem; margin: 0 0 0.6rem; padding-bottom: 0.2rem;
     border-bottom: 2px solid var(--band); }
h3 { font-size: 1rem; margin: 1rem 0 0.4rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.15rem 1rem;
           margin: 0 0 1rem; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.scroll { overflow-x: auto; max-width: 100%; margin: 0 0 0.5rem; }
table { border-collapse: collapse; font-size: 0.9rem; }
th, td { padding: 0.25rem 0.6rem; border-bottom: 1px solid var(--line); text-align: left;
         vertical-align: top; }
th { background: var(--band); font-weight: 600; white-space: nowrap; }
td a { white-space: nowrap; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tbody tr:hover { background: #fafbfd; }
figure { margin: 0.5rem 0 1rem; }
figure { overflow-x: auto; }
figure svg { width: 100%; height: auto; display: block; }
.note { color: var(--muted); font-size: 0.88rem; max-width: 60rem; }
code { font-size: 0.88em; overflow-wrap: anywhere; }
pre.pgn { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--band);
          padding: 0.6rem; font-size: 0.85rem; }
.pass { color: #1a7f37; font-weight: 600; } .fail { color: #c0392b; font-weight: 600; }
[hidden] { display: none !important; }
body.one-game main > section:not(#game-view) { display: none; }
footer { color: var(--muted); font-size: 0.85rem; padding: 1rem 1.5rem 2rem;
         border-top: 1px solid var(--line); }
@media (max-width: 700px) {
  body { font-size: 14px; }
  header, main, footer { padding-left: 0.75rem; padding-right: 0.75rem; }
  dl.facts { grid-template-columns: 1fr; }
  dl.facts dt { margin-top: 0.3rem; }
  th, td { padding: 0.2rem 0.4rem; }
  figure svg { min-width: 560px; }
}
@media print {
  nav { display: none; }
  body { font-size: 11pt; }
  main { max-width: none; padding: 0; }
  .scroll { overflow: visible; }
  figure, tr { break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
}
"""


class Markup(str):
    """Markup made by this package (already escaped): a table cell takes it as it is."""


def num(value: Any, fmt: str) -> str:
    """`value` formatted by `fmt`, or an em dash when it is missing or not a number;
    `fmt` may start with '±' to prefix the sign."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if fmt.startswith("±"):
        return "±" + format(value, fmt[1:])
    return format(value, fmt)


def options_text(options: dict[str, Any]) -> str:
    """Engine options as `Name=value` pairs ("defaults" when there are none)."""
    return ", ".join(f"{k}={v if isinstance(v, str | int | float) else json.dumps(v)}"
                     for k, v in options.items()) or "defaults"


def table(head: Sequence[str], rows: Sequence[Sequence[Any]], numeric_from: int | None = None,
          numeric_to: int | None = None) -> str:
    """A table in a sideways-scrolling box, every cell escaped but `Markup`; columns from
    `numeric_from` on (up to `numeric_to`, excluded) are aligned right as numbers."""
    def cls(k: int) -> str:
        numeric = numeric_from is not None and numeric_from <= k < (numeric_to or len(head))
        return " class='n'" if numeric else ""

    th = "".join(f"<th{cls(k)}>{escape(str(h))}</th>" for k, h in enumerate(head))
    body = []
    for row in rows:
        cells = "".join(
            f"<td{cls(k)}>{cell if isinstance(cell, Markup) else escape(str(cell))}</td>"
            for k, cell in enumerate(row))
        body.append(f"<tr>{cells}</tr>")
    return (f"<div class='scroll'><table><thead><tr>{th}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table></div>")


def section(anchor: str, title: str, body: str) -> str:
    """A titled section that the navigation can link to."""
    return f"<section id='{escape(anchor)}'><h2>{escape(title)}</h2>{body}</section>"


def document(title: str, heading: str, status: str, nav: Sequence[tuple[str, str]], body: str,
             footer: str, refresh_s: int | None = None) -> str:
    """The whole HTML document; `footer` is markup, everything else text. With `refresh_s` the
    browser reloads it that often (a page of a run still playing)."""
    links = "".join(f"<a href='#{escape(a)}'>{escape(t)}</a>" for a, t in nav)
    refresh = f"<meta http-equiv='refresh' content='{int(refresh_s)}'>" if refresh_s else ""
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"{refresh}<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
            f"<header><h1>{escape(heading)}</h1><p class='status'>{escape(status)}</p>"
            f"<nav>{links}</nav></header><main>{body}</main><footer>{footer}</footer>"
            "</body></html>\n")
