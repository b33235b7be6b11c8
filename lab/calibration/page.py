"""The page of a calibration (`report.html` in its folder): scale, levels, criteria, result.

Written by `tempo calibrate` beside `report.md` from the same figures: the anchors and their
ratings, time control, games and fit first (docs/reference/elo_limit.md §5 asks for the scale
before any number), the calibration plot, then per round each level's nominal and measured Elo
with its interval and status (`lab.calibration.report.level_rows`, the report's own table), the
verdict's figures and one pass/fail line per criterion, each level's result against each anchor
it met (`lab.calibration.opponents`, as in the report), each anchor's speed against the levels
beside its rated speed (`lab.calibration.speeds`), and links to the page of every stage (each
stage is a results folder with its own page).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from html import escape
from pathlib import Path

from lab.calibration.config import Calibration
from lab.calibration.full_strength import rating_text
from lab.calibration.opponents import INTRO, beyond_text, opponent_rows
from lab.calibration.outcome import CalibrationOutcome, FullStrength, RoundResult
from lab.calibration.plot import calibration_figure
from lab.calibration.report import level_rows, round_label, round_opponents, table_played_text
from lab.calibration.speeds import SPEED_INTRO, changed_text, speed_rows
from lab.export import write_atomically
from lab.machine import machine
from lab.page.layout import Markup, document, num, options_text, section, table
from lab.page.svg import inline_svg
from lab.page.write import PAGE_NAME


def _facts(items: list[tuple[str, str]]) -> str:
    return "<dl class='facts'>" + "".join(
        f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in items) + "</dl>"


def full_strength_text(full: FullStrength) -> str:
    """Full strength's rating on the anchors' scale, its games and anchors, the declared top."""
    declared = (f"; the engine declares {full.declared:.0f}"
                if math.isfinite(full.declared) else "")
    return (f"{rating_text(full)} in {full.games} games against {', '.join(full.anchors)}, anchors "
            f"fixed{declared}")


def scale_section(cal: Calibration, command: str | None,
                  full: FullStrength | None = None) -> str:
    """What the numbers are relative to, and how they were measured; full strength's rating
    on that scale when the calibration measured it."""
    anchors = table(["anchor", "rating", "options"],
                    [[a.name if a.plays_levels else f"{a.name} (rated only: no level plays it)",
                      f"{a.rating:g}", options_text(a.table.get("options", {}))]
                     for a in cal.anchors], numeric_from=1, numeric_to=2)
    facts = [
        ("time control", cal.tc),
        ("games per level and round", f"{cal.games} against anchors, {cal.ladder_games} "
                                      "against the adjacent level"),
        ("openings", f"paired, from {cal.openings.get('file', 'the start position')}"),
        ("fit", "Ordo's logistic model, a round's anchor games at once, anchors fixed; 95 % "
                "intervals from the likelihood's curvature; the ladder's games judge E and place "
                "no level"),
        ("criteria", f"docs/reference/elo_limit.md §5 (A–D, G); {cal.thresholds}"),
        ("machine", machine()),
        ("command", command or "—"),
    ]
    if full is not None:
        facts.insert(4, ("full strength", full_strength_text(full)))
    return section("scale", "Scale", _facts(facts) + anchors)


def _stage_links(folder: Path, result: RoundResult) -> str:
    pages = sorted(result.folder.rglob(PAGE_NAME))
    if not pages:
        return ""
    links = ", ".join(
        f"<a href='{escape(p.relative_to(folder).as_posix())}'>"
        f"{escape(p.parent.relative_to(result.folder).as_posix())}</a>" for p in pages)
    return f"<p>Stages (each a results folder with its own page): {links}</p>"


def round_section(cal: Calibration, result: RoundResult) -> str:
    """One round: the level table, the verdict and its criteria, the per-anchor diagnostic,
    the table it produced."""
    head, rows = level_rows(cal, result)
    verdict = result.verdict
    figures = (f"Bias {num(verdict.bias, '+.1f')}, RMS error {num(verdict.rms, '.1f')}, max "
               f"error {num(verdict.max_error, '.1f')}, slope {num(verdict.slope, '.3f')}.")
    criteria = table(
        ["", "criterion", "detail"],
        [[Markup(f"<span class='{'pass' if ok else 'fail'}'>{'PASS' if ok else 'FAIL'}</span>"),
          name, detail] for name, ok, detail in verdict.lines])
    overall = "pass" if verdict.passed else "fail"
    body = (f"<p>Levels played with {escape(table_played_text(result.table_played))}.</p>"
            + table(head, rows, numeric_from=1, numeric_to=len(head) - 1)
            + f"<p>{escape(figures)} Overall: <span class='{overall}'>"
              f"{overall.upper()}</span>.</p>" + criteria)
    opponents = round_opponents(cal, result)
    if opponents:
        head, rows = opponent_rows(opponents)
        body += (f"<p>{escape(INTRO)}</p>" + table(head, rows, numeric_from=2, numeric_to=7)
                 + f"<p>{escape(beyond_text(opponents, cal.thresholds.agreement_se))}</p>")
    if result.speeds:
        head, rows = speed_rows(result.speeds)
        body += (f"<p>{escape(SPEED_INTRO)}</p>" + table(head, rows, numeric_from=1,
                                                         numeric_to=4)
                 + f"<p>{escape(changed_text(result.speeds))}</p>")
    if result.corrected is not None:
        body += f"<p>Corrected table for the next round: {escape(str(result.corrected))}.</p>"
    body += _stage_links(cal.out, result)
    return section(f"round{result.number}", round_label(result), body)


def calibration_page(cal: Calibration, outcome: CalibrationOutcome, plot_svg: str,
                     command: str | None = None) -> str:
    """The whole calibration page."""
    if outcome.final is None:
        result = f"No table was written: {outcome.problem}"
    elif outcome.passed:
        result = f"The measured table passes; it is written to {outcome.final}."
    else:
        result = (f"No measured table passed within {cal.rounds} round(s); {outcome.final} "
                  "holds the latest correction, not yet measured.")
    status = f"{'PASSED' if outcome.passed else 'did not pass'}: {result}"
    nav = [("scale", "Scale"), ("plot", "Measured vs nominal")]
    nav += [(f"round{r.number}", f"Round {r.number}") for r in outcome.rounds]
    body = (scale_section(cal, command, outcome.full_strength)
            + section("plot", "Measured against nominal Elo", f"<figure>{plot_svg}</figure>")
            + "".join(round_section(cal, r) for r in outcome.rounds))
    written = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return document(f"Tempo calibration: {cal.name}", f"Calibration: {cal.name}", status, nav,
                    body, f"Written {written} by tempo calibrate, with report.md and the "
                    "levels.csv it summarises.")


def write_calibration_page(cal: Calibration, outcome: CalibrationOutcome,
                           command: str | None = None) -> Path:
    """Write `report.html` into the calibration's folder (atomically); returns its path."""
    figure = calibration_figure([(round_label(r), r.measured) for r in outcome.rounds],
                                [(a.name, a.rating) for a in cal.anchors],
                                f"Elo calibration: {cal.name} ({cal.tc})")
    text = calibration_page(cal, outcome, inline_svg(figure, "calibration"), command)
    return write_atomically(cal.out / PAGE_NAME,
                            lambda tmp: tmp.write_text(text, encoding="utf-8"))
