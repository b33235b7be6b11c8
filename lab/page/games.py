"""Every game's own view: its moves with timing and telemetry, and its PGN, as data in the page.

A thousand games of eighty moves would be tens of megabytes as HTML tables, so each game travels
as compact JSON (one list per column, numbers rounded to what the view shows) inside a
`<script type="application/json">` element, and a few lines of inline script draw the view of the
game named in the address (`#game-ID`) with DOM text nodes, never markup from the data. The JSON
is escaped for a script element (`<`, `>` and `&` as \\u escapes), so no engine name or PGN tag
can close it.

The PGN text of each game is taken from the run's `games.pgn` when that file holds exactly the
stored games (it is written from the store by `lab.export`); otherwise it is written afresh with
`lab.export.pgn_text`.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from lab.export import pgn_text, score_text

#: Per-move columns of a game view: (heading, store column, digits to keep, how JS shows it).
MOVE_COLUMNS: list[tuple[str, str, int, str]] = [
    ("time s", "elapsed_ms", 1, "s3"),
    ("clock s", "clock_after_ms", 0, "s2"),
    ("depth", "depth", 0, "int"),
    ("nodes", "nodes", 0, "int"),
    ("budget s", "tm_budget_ms", 1, "s3"),
    ("hard s", "tm_hard_ms", 1, "s3"),
    ("moves left", "tm_moves_left", 1, "f1"),
    ("NPS est.", "tm_nps_est", 0, "int"),
    ("tree reuse", "tm_tree_reuse", 3, "f3"),
    ("time use", "tm_timeuse", 3, "f3"),
    ("stop", "tm_stop_reason", -1, "text"),
]

_GAME_ID_TAG = re.compile(r'^\[GameId "((?:[^"\\]|\\.)*)"\]$', re.MULTILINE)


def _column(frame: pd.DataFrame, column: str, digits: int) -> list[Any]:
    """A column as JSON-ready values (None where missing), numbers rounded to `digits`; the
    numbers are rounded and the gaps filled by numpy, not per value in Python (a 100k-move
    page has a million of them)."""
    values = frame[column]
    if digits < 0:
        return [None if v is None or v != v else str(v) for v in values.astype(object).tolist()]
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    numbers = numbers.round(digits)
    missing = np.isnan(numbers)
    found = np.where(missing, 0.0, numbers).astype(np.int64) if digits == 0 else numbers
    found = found.astype(object)
    found[missing] = None
    return found.tolist()


def split_pgn(text: str) -> dict[str, str]:
    """Each game of a PGN text by its GameId tag (games without one are left out)."""
    found: dict[str, str] = {}
    for chunk in re.split(r"\n{2,}(?=\[)", text.strip()):
        match = _GAME_ID_TAG.search(chunk)
        if match:
            found[match.group(1).replace('\\"', '"').replace("\\\\", "\\")] = chunk.strip()
    return found


def game_pgns(folder: Path, games: pd.DataFrame, moves: pd.DataFrame, event: str
              ) -> dict[str, str]:
    """The PGN text of each game: from `folder/games.pgn` when it holds exactly the stored
    games, else written from the store."""
    path = folder / "games.pgn"
    ids = [str(g) for g in games["game_id"]]
    if path.is_file():
        found = split_pgn(path.read_text(encoding="utf-8", errors="replace"))
        if set(found) == set(ids):
            return found
    return dict(zip(ids, pgn_text(games, moves, event), strict=True))


def games_json(games: pd.DataFrame, moves: pd.DataFrame, pgns: dict[str, str]) -> str:
    """The data of every game's view, as JSON safe inside a script element."""
    present = [(head, col, digits, kind) for head, col, digits, kind in MOVE_COLUMNS
               if col in moves.columns and moves[col].notna().any()]
    columns = {col: _column(moves, col, digits) for _, col, digits, _ in present}
    ply = moves["ply"].astype(int).tolist()
    san = moves["san"].astype(object).where(moves["san"].notna(), moves["move"]).tolist()
    side = moves["side"].tolist()
    cached_score = functools.lru_cache(maxsize=None)(score_text)  # few distinct scores
    score = [cached_score(cp, mate) or "" for cp, mate in
             zip(moves["score_cp"].tolist(), moves["score_mate"].tolist(), strict=True)]
    spans: dict[str, tuple[int, int]] = {}
    ids = moves["game_id"].tolist()
    start = 0
    for k in range(1, len(ids) + 1):
        if k == len(ids) or ids[k] != ids[start]:
            spans[ids[start]] = (start, k)
            start = k
    views = {}
    for g in games.itertuples(index=False):
        a, b = spans.get(g.game_id, (0, 0))
        views[str(g.game_id)] = {
            "white": str(g.white), "black": str(g.black), "result": str(g.result),
            "info": f"{g.termination or ''}: {g.reason or ''}; time control {g.tc or '—'}; "
                    f"started {g.started_at or '—'}",
            "pgn": pgns.get(str(g.game_id), ""),
            "ply": ply[a:b], "san": san[a:b], "side": side[a:b], "score": score[a:b],
            "cols": {col: values[a:b] for col, values in columns.items()},
        }
    data = {"columns": [[head, col, kind] for head, col, _, kind in present], "games": views}
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


#: Draws the view of the game in the address from the JSON data, with text nodes only: a chart of
#: the time used per move against the budget, the moves table and the PGN.
VIEW_SCRIPT = """
(function () {
  var data = JSON.parse(document.getElementById("game-data").textContent);
  var view = document.getElementById("game-view");
  function el(tag, text) {
    var node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function show(value, kind) {
    if (value === null || value === undefined) return "";
    if (kind === "s3") return (value / 1000).toFixed(3);
    if (kind === "s2") return (value / 1000).toFixed(2);
    if (kind === "f1") return value.toFixed(1);
    if (kind === "f3") return value.toFixed(3);
    return String(value);
  }
  function svg(tag, attrs) {
    var node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    return node;
  }
  function chart(game) {
    var used = game.cols.elapsed_ms || [], budget = game.cols.tm_budget_ms || [];
    var n = game.ply.length, w = 900, h = 220, left = 48, bottom = 28, top = 24;
    var most = 1;
    for (var i = 0; i < n; i++) most = Math.max(most, used[i] || 0, budget[i] || 0);
    var step = (w - left - 8) / Math.max(n, 1);
    var y = function (ms) { return h - bottom - (h - bottom - top) * ms / most; };
    var root = svg("svg", {viewBox: "0 0 " + w + " " + h, role: "img",
                           style: "max-width: " + w + "px"});
    root.appendChild(el("title", "time used and budget per move"));
    [0, 0.5, 1].forEach(function (f) {
      root.appendChild(svg("line", {x1: left, x2: w - 8, y1: y(f * most), y2: y(f * most),
                                     stroke: "#d9dde5"}));
      var label = svg("text", {x: left - 6, y: y(f * most) + 4, "text-anchor": "end",
                               "font-size": 11, fill: "#5b6475"});
      label.textContent = (f * most / 1000).toFixed(2) + " s";
      root.appendChild(label);
    });
    for (var k = 0; k < n; k++) {
      var colour = game.side[k] === "white" ? "#1f77b4" : "#ff7f0e";
      if (used[k] !== null && used[k] !== undefined) {
        root.appendChild(svg("rect", {x: left + k * step + step * 0.1, width: step * 0.8,
                                      y: y(used[k]), height: y(0) - y(used[k]),
                                      fill: colour}));
      }
      if (budget[k] !== null && budget[k] !== undefined) {
        root.appendChild(svg("rect", {x: left + k * step, width: step, y: y(budget[k]) - 1,
                                      height: 2.5, fill: "#1d2330"}));
      }
    }
    var legend = svg("text", {x: left, y: 14, "font-size": 12, fill: "#1d2330"});
    legend.textContent = "time used per move (bars: " + game.white + " blue, " + game.black +
      " orange)" + (budget.length ? "; dark ticks: the time manager's budget" : "") +
      "; x: ply " + (game.ply[0] || "") + " to " + (game.ply[n - 1] || "");
    root.appendChild(legend);
    var figure = el("figure");
    figure.appendChild(root);
    return figure;
  }
  function render() {
    var id = decodeURIComponent(location.hash.slice(1));
    var game = id.indexOf("game-") === 0 ? data.games[id.slice(5)] : undefined;
    view.replaceChildren();
    view.hidden = !game;
    document.body.classList.toggle("one-game", !!game);
    if (!game) return;
    var columns = data.columns.filter(function (c) {
      return game.cols[c[1]].some(function (v) { return v !== null; });
    });
    view.appendChild(el("h2", "Game " + id.slice(5) + ": " + game.white + " \\u2013 " +
                        game.black + " " + game.result));
    var info = el("p", game.info + ". ");
    var back = el("a", "Back to the games");
    back.href = "#games";
    info.appendChild(back);
    view.appendChild(info);
    view.appendChild(chart(game));
    var box = el("div"), table = el("table"), head = el("tr"), body = el("tbody");
    box.className = "scroll";
    ["ply", "move", "engine", "score"].concat(columns.map(function (c) { return c[0]; }))
      .forEach(function (h, k) {
        var th = el("th", h);
        if (k >= 3) th.className = "n";
        head.appendChild(th);
      });
    var thead = el("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    for (var i = 0; i < game.ply.length; i++) {
      var row = el("tr");
      var cells = [game.ply[i], game.san[i], game.side[i] === "white" ? game.white : game.black,
                   game.score[i]];
      columns.forEach(function (c) { cells.push(show(game.cols[c[1]][i], c[2])); });
      cells.forEach(function (text, k) {
        var td = el("td", String(text));
        if (k >= 3) td.className = "n";
        row.appendChild(td);
      });
      body.appendChild(row);
    }
    table.appendChild(body);
    box.appendChild(table);
    view.appendChild(box);
    var details = el("details"), pre = el("pre", game.pgn);
    details.appendChild(el("summary", "PGN"));
    pre.className = "pgn";
    details.appendChild(pre);
    view.appendChild(details);
    window.scrollTo(0, 0);
  }
  window.addEventListener("hashchange", render);
  render();
})();
"""


def game_views(games: pd.DataFrame, moves: pd.DataFrame, pgns: dict[str, str]) -> str:
    """The (hidden) view section, the games' data and the script that fills the view; while a
    game is shown the page shows nothing else (`body.one-game`)."""
    return ("<section id='game-view' class='game' hidden></section>"
            f"<script id='game-data' type='application/json'>"
            f"{games_json(games, moves, pgns)}</script><script>{VIEW_SCRIPT}</script>")
