"""The page of a results folder as one self-contained HTML document.

Every piece of text from the store (engine names, options, PGN tags, reasons) goes through
`html.escape`, so a hostile engine name is shown as text and never runs. Nothing is loaded from
the network: the style sheet is inline and the figures are inline SVG. Each game has its own view
(`lab.page.games`), drawn when the address ends in `#game-ID`.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from html import escape

import pandas as pd

from lab.page.data import RunSummary, SprtState
from lab.page.games import game_views
from lab.page.layout import Markup, document, num, options_text, section, table
from lab.progress import duration_text


def status_line(summary: RunSummary) -> str:
    """'running: 12 of 40 games, ETA 3 min 10 s' or 'finished: 40 of 40 games'."""
    p = summary.progress
    of = f" of {p.scheduled}" if p.scheduled is not None else ""
    state = "running" if p.running else "finished" if p.scheduled in (None, p.played) \
        else "stopped"
    text = f"{state}: {p.played}{of} games"
    if p.eta_s is not None:
        text += f", ETA {duration_text(p.eta_s)}"
    return text


def experiment_section(summary: RunSummary) -> str:
    """Time control, schedule, book, adjudication, machine, times, and the engines."""
    cfg = summary.config
    book = cfg.get("openings") or {}
    adjudication = {k: v for k, v in (cfg.get("adjudication") or {}).items()
                    if v not in (None, False)}
    schedule = str(cfg.get("schedule") or "")
    if cfg.get("challengers") and schedule == "gauntlet":
        schedule += " of " + ", ".join(cfg["challengers"])
    sprt = cfg.get("sprt")
    facts = [
        ("time control", cfg.get("tc")),
        ("schedule", schedule),
        ("openings", f"{book.get('file') or 'start position'} ({book.get('order', '')}"
                     f"{', paired' if book.get('paired') else ''})"),
        ("adjudication", options_text(adjudication) if adjudication else "none"),
        ("SPRT", f"[{sprt['elo0']:g}, {sprt['elo1']:g}] {sprt['model']} Elo, alpha "
                 f"{sprt['alpha']:g}, beta {sprt['beta']:g}" if sprt else "none"),
        ("concurrency", cfg.get("concurrency")),
        ("machine", ", ".join(summary.hosts) or "—"),
        ("started", summary.progress.started or "—"),
        ("last game finished", summary.progress.finished or "—"),
        ("games", status_line(summary)),
        ("folder", str(summary.folder)),
    ]
    dl = "".join(f"<dt>{escape(k)}</dt><dd>{escape(str(v))}</dd>" for k, v in facts)
    engines = table(
        ["engine", "identity", "command", "protocol", "interpreter", "time control", "options"],
        [[e.name, e.identity, e.command, e.protocol, e.interpreter, e.tc, options_text(e.options)]
         for e in summary.engines])
    return section("experiment", "Experiment", f"<dl class='facts'>{dl}</dl>{engines}")


def standings_section(summary: RunSummary) -> str:
    """The Ordo table (as `tempo ratings` prints it by default) and the LOS matrix."""
    ratings = summary.ratings
    if ratings is None:
        return section("standings", "Standings", f"<p>{escape(summary.ratings_note)}</p>")
    pct = round(100 * ratings.confidence)
    rows = []
    for r in ratings.frame.itertuples(index=False):
        interval = "—" if math.isnan(r.error) else f"{r.lower:.1f} … {r.upper:.1f}"
        rows.append([r.rank, r.player, f"{r.bound}{r.rating:.1f}", num(r.error, "±.1f"),
                     interval, f"{r.points:.1f}", r.played, f"{r.score:.1f}",
                     f"{r.draws:.1f}", num(r.cfs_next, ".0f")])
    head = ["#", "player", "Elo", "error", f"{pct} % interval", "points", "games", "score %",
            "draws %", "LOS next %"]
    los = ratings.los
    los_rows = [[player, *(num(100 * los.loc[player, other], ".1f") for other in los.columns)]
                for player in los.index]
    white, _ = ratings.white
    text = (table(head, rows, numeric_from=2)
            + f"<p class='note'>Ordo's logistic model, {pct} % intervals from the "
              f"{escape(ratings.error_source)}, relative to the {escape(ratings.relative_to)}; "
              f"'&gt;' and '&lt;' mark bounds for perfect scores; white advantage "
              f"{white:.1f}, draw rate between equals {100 * ratings.draw[0]:.1f} %. The same "
              f"numbers as <code>tempo ratings {escape(str(summary.folder))}</code>.</p>"
            + "<h3>Likelihood of superiority (%, row better than column)</h3>"
            + table(["", *los.columns], los_rows, numeric_from=1))
    return section("standings", "Standings", text)


def pairings_section(summary: RunSummary) -> str:
    """W/D/L and pentanomial counts of each pairing."""
    if not summary.pairings:
        return ""
    paired = any(p.penta is not None for p in summary.pairings)
    head = ["player", "opponent", "games", "W", "D", "L", "score %"]
    if paired:
        head += ["LL", "LD", "WL+DD", "WD", "WW"]
    rows = []
    for p in summary.pairings:
        losses, draws, wins = p.wdl
        games = losses + draws + wins
        score = 100 * (wins + 0.5 * draws) / games if games else math.nan
        rows.append([p.first, p.second, games, wins, draws, losses, num(score, ".1f"),
                     *(p.penta or [])])
    note = ("<p class='note'>From the player's side; pentanomial counts over completed pairs "
            "of games (same opening, colours reversed).</p>") if paired else ""
    return section("pairings", "Pairings", table(head, rows, numeric_from=2) + note)


def sprt_section(summary: RunSummary, llr_svg: str) -> str:
    """The SPRT's state, its estimates and the LLR curve."""
    state: SprtState | None = summary.sprt
    if state is None:
        return section("sprt", "SPRT", f"<p>{escape(summary.sprt_note)}</p>") \
            if summary.sprt_note else ""
    result, est = state.result, state.estimate
    verdict = {"H0": "H0 accepted", "H1": "H1 accepted",
               None: "none yet (continue)"}[result.decision]
    label = "pentanomial (LL, LD, WL+DD, WD, WW)" if state.counts.paired \
        else "trinomial (L, D, W)"
    facts = [
        ("engine", state.counts.engine),
        ("decision", verdict),
        ("LLR", f"{result.llr:+.2f} (bounds {result.lower_bound:+.2f}, "
                f"{result.upper_bound:+.2f})"),
        ("test", str(result)),
        (label, ", ".join(map(str, state.counts.counts))),
        ("estimate", str(est)),
        ("SPRT-corrected", str(state.corrected)),
    ]
    dl = "".join(f"<dt>{escape(k)}</dt><dd>{escape(str(v))}</dd>" for k, v in facts)
    text = (f"<dl class='facts'>{dl}</dl><figure>{llr_svg}</figure><p class='note'>The same "
            f"numbers as <code>tempo sprt {escape(str(summary.folder))}</code>.</p>")
    return section("sprt", "SPRT", text)


def terminations_section(summary: RunSummary) -> str:
    """How each engine's games ended, with the games it lost that way."""
    ended, lost = summary.terminations, summary.faults
    if ended.empty:
        return ""
    rows = []
    for engine in ended.index:
        cells = []
        for term in ended.columns:
            n, k = int(ended.loc[engine, term]), int(lost.loc[engine, term])
            cells.append(f"{n} ({k} lost)" if k and term != "normal" else str(n))
        rows.append([engine, *cells])
    note = ("<p class='note'>Games that ended each way; for terminations other than a normal "
            "end, how many of them the engine lost (a time forfeit, an illegal move or a crash "
            "counts against the engine that made it).</p>")
    return section("terminations", "Terminations",
                   table(["engine", *ended.columns], rows, numeric_from=1) + note)


def time_section(time_svg: str, note: str) -> str:
    """The many-games time-usage figure."""
    body = f"<figure>{time_svg}</figure>" if time_svg else f"<p>{escape(note)}</p>"
    return section("time", "Time usage", body + (
        "<p class='note'>Per engine (and time manager): time used per move against the mean "
        "budget, the share of the clock used by the end of each game, nodes per move.</p>"
        if time_svg else ""))


def games_section(games: pd.DataFrame) -> str:
    """One row per game, each opening its own view."""
    rows = []
    for k, g in enumerate(games.itertuples(index=False), 1):
        link = f"<a href='#game-{escape(str(g.game_id))}'>{escape(str(g.game_id))}</a>"
        rows.append([k, Markup(link), g.white, g.black, g.result, g.termination or "",
                     g.reason or "", g.plies])
    return section("games", "Games", table(
        ["#", "game", "white", "black", "result", "termination", "reason", "plies"], rows))


def run_page(summary: RunSummary, time_svg: str, time_note: str, llr_svg: str,
             pgns: dict[str, str]) -> str:
    """The whole page of a results folder; `pgns` holds each game's PGN text by its id."""
    written = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    nav = [("experiment", "Experiment"), ("standings", "Standings"), ("pairings", "Pairings")]
    if summary.sprt is not None:
        nav.append(("sprt", "SPRT"))
    nav += [("terminations", "Terminations"), ("time", "Time usage"), ("games", "Games")]
    body = (game_views(summary.games, summary.moves, pgns)
            + experiment_section(summary) + standings_section(summary)
            + pairings_section(summary) + sprt_section(summary, llr_svg)
            + terminations_section(summary) + time_section(time_svg, time_note)
            + games_section(summary.games))
    refresh = summary.progress.running
    return document(f"Tempo: {summary.name}", summary.name, status_line(summary), nav, body,
                    f"Written {written} from tempo.sqlite, the record of truth; "
                    f"<code>tempo report {escape(str(summary.folder))}</code> rewrites it.",
                    refresh_s=10 if refresh else None)
