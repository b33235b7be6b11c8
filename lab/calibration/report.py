"""A calibration's report: the plot, `report.md` with every figure judged, and its CSV summaries.

The report states the scale first (anchors and their ratings, time control, openings, fit), as
docs/reference/elo_limit.md §5 asks, and the anchor round robin's table (declared and measured
ratings), then per round: each level's nominal and measured Elo with its
95 % interval and error, the bias, RMS error, slope and monotonicity with a pass/fail line each,
levels marked as extrapolated, the levels fitted with the ladder's games too (a diagnostic),
each level's result against each anchor it met beside its fit's
prediction (`lab.calibration.opponents`), each anchor's speed against the levels beside the
speed it was rated at (`lab.calibration.speeds`), and which targets the corrected table had to
leave out.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from lab.calibration.anchor_round_robin import anchor_lines
from lab.calibration.config import Calibration, ReportOnly
from lab.calibration.correct import Correction
from lab.calibration.criteria import head_to_head
from lab.calibration.full_strength import curve_end_text, full_strength_lines
from lab.calibration.opponents import (
    INTRO,
    OpponentResult,
    beyond_text,
    opponent_results,
    opponent_rows,
)
from lab.calibration.outcome import (
    AnchorRating,
    CalibrationOutcome,
    RoundResult,
    ends_at_full_strength,
    extrapolated_targets,
)
from lab.calibration.plot import plot_calibration
from lab.calibration.remaining import all_played, remaining_line
from lab.calibration.speeds import SPEED_INTRO, AnchorSpeed, changed_text, speed_rows
from lab.calibration.tables import param_columns
from lab.machine import machine

REPORT_NAME = "report.md"
PLOT_NAME = "calibration.png"
LEVELS_NAME = "levels.csv"
ANCHORS_NAME = "anchors.csv"
#: Where `tempo calibrate --report` writes its interim report, inside the calibration's folder.
INTERIM_FOLDER = "interim"



def _num(value: float, fmt: str = ".0f") -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) \
        else format(value, fmt)


def round_label(result: RoundResult) -> str:
    if result.number == 1:
        return "round 1 (before correction)"
    return f"round {result.number} (after correction {result.number - 1})"


def table_played_text(played: Path | None) -> str:
    """The table a round's levels played with, as a path relative to the working directory
    when it lies under it (a report must not carry the machine's checkout path)."""
    if played is None:
        return "the engine's built-in levels"
    cwd = Path.cwd()
    return str(played.relative_to(cwd)) if played.is_relative_to(cwd) else str(played)


def level_rows(cal: Calibration, result: RoundResult) -> tuple[list[str], list[list[str]]]:
    """The round's level table: its headings and one row of text per level (the report's table
    and the calibration page's). The error is against the level's target: its nominal Elo, or
    for a pinned top level full strength's rating (`pinned_top.pinned_top_target`)."""
    columns = param_columns(cal, result.params)[:4]
    head = ["level", "target", *columns, "measured", "95 %", "error", "games", "score %",
            "status"]
    rows = []
    for row in result.measured.itertuples(index=False):
        data = row._asdict()
        status = ("extrapolated (" + data["extrapolated"] + " anchors ± 200)"
                  if data["extrapolated"] else "pass" if data["passed"] else "FAIL")
        if not data["games"]:
            status = "no games yet"
        if data["bound"]:
            status = f"perfect score, bound {data['bound']}"
        if not data.get("tied", True):
            status = "not tied to the anchors" + (f", bound {data['bound']}"
                                                  if data["bound"] else "")
        target = data.get("target", data["nominal"])
        error = data["measured"] - target
        rows.append([str(data["nominal"]), _num(target, ".0f"),
                     *(_num(data[c], ".0f") for c in columns),
                     _num(data["measured"]), "±" + _num(data["halfwidth"]),
                     _num(error, "+.0f"), str(data["games"]), _num(data["score"], ".1f"),
                     status])
    return head, rows


def markdown_table(head: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table's lines: the headings, the rule, one line per row."""
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return lines + ["| " + " | ".join(cells) + " |" for cells in rows]


def _level_table(cal: Calibration, result: RoundResult) -> list[str]:
    return markdown_table(*level_rows(cal, result))


def _ladder_lines(cal: Calibration, result: RoundResult) -> list[str]:
    """The §5 (D) head-to-head cross-check for adjacent levels that played each other."""
    h2h = result.ladder_scores()
    lines = []
    for low, high in zip(result.levels[:-1], result.levels[1:], strict=True):
        key = (cal.level_name(high), cal.level_name(low))
        if key not in h2h.index:
            continue
        row = h2h.loc[key]
        predicted, status = head_to_head(high - low, float(row["score"]), int(row["games"]))
        lines.append(f"- head to head {key[0]} vs {key[1]}: {row['score']:.1f} % over "
                     f"{int(row['games'])} games, nominal gap predicts {predicted:.1f} % "
                     f"(± 5): {status}")
    if lines:
        lines.insert(0, "")
        lines.insert(1, "Ladder cross-check (reference §5 D, judged from 400 games on):")
    return lines


def with_ladder_lines(cal: Calibration, result: RoundResult) -> list[str]:
    """Each level's rating fitted with the ladder's games too, beside its placement: the
    diagnostic that shows how far self-play between levels would pull them (nothing without a
    ladder)."""
    if result.with_ladder is None:
        return []
    both = result.with_ladder.frame.set_index("player")
    placed = result.measured.set_index("level")["measured"]
    cells = []
    names = [cal.level_name(level) for level in result.levels]
    for name in (n for n in names if n in both.index):
        bound, rating = both.loc[name, "bound"], float(both.loc[name, "rating"])
        shift = math.nan if bound else rating - placed.get(name, math.nan)
        cells.append(f"{name} {bound}{rating:.0f} ({_num(shift, '+.0f')})")
    return ["", "Fitted with the ladder's games too (a diagnostic, beside the placement in "
            "brackets; levels of one engine separate further against each other than the "
            "anchors place them, so these games judge E only): " + ", ".join(cells) + "."]


def round_opponents(cal: Calibration, result: RoundResult) -> list[OpponentResult]:
    """Each level's result against each anchor it met in the round, beside its fit's prediction
    (`lab.calibration.opponents`: the report's and the page's per-anchor table)."""
    return opponent_results(result.ratings.head_to_head,
                            [cal.level_name(lv) for lv in result.levels], cal.ratings)


def opponent_lines(results: list[OpponentResult], k: float = 2.0) -> list[str]:
    """The report's Markdown for `opponent_results`: the intro, the table and `beyond_text`
    (nothing without a pair)."""
    if not results:
        return []
    return (["", INTRO, "", *markdown_table(*opponent_rows(results))]
            + ["", beyond_text(results, k)])


def speed_lines(speeds: list[AnchorSpeed]) -> list[str]:
    """The report's Markdown for the anchors' speeds (`lab.calibration.speeds`): the intro, the
    table and `changed_text` (nothing without an anchor speed on both sides)."""
    if not speeds:
        return []
    return ["", SPEED_INTRO, "", *markdown_table(*speed_rows(speeds)), "", changed_text(speeds)]


def correction_notes(correction: Correction) -> list[str]:
    """What the report says of a correction's fit: whether the isotonic step changed the points
    (every round's measurements merged by setting and ordered by search effort, with full
    strength's, so a round's own levels can be increasing while the pooled points are not) and
    which targets fell outside the curve."""
    notes = []
    if correction.adjusted:
        notes.append("The points the correction fits (every round's measurements, merged by "
                     "setting and ordered by search effort, and full strength's) were not "
                     "monotone; isotonic regression smoothed them before interpolating.")
    if correction.below:
        notes.append(f"Extrapolated, left out: {', '.join(map(str, correction.below))} "
                     "(weaker than the weakest level plays).")
    if correction.above:
        notes.append(f"Extrapolated, left out: {', '.join(map(str, correction.above))} "
                     "(stronger than the curve's strongest point plays).")
    return notes


def _interim_lines(cal: Calibration, progress: ReportOnly) -> list[str]:
    """What an interim report (`tempo calibrate --report`) was written from: each stage reached
    so far, with the games it holds and plans, and what is left (`remaining_line`)."""
    state = ("whose every planned game is played" if all_played(cal, progress)
             else "that has not ended")
    lines = [f"**Interim report** of a calibration {state}, written by `tempo "
             f"calibrate --report`, which plays no game: {progress.held} of the "
             f"{progress.planned} games planned "
             "in the stages reached so far are played (a stage not begun holds none; the next "
             "round is reached once this one's correction is written). Every figure moves as "
             "games are added.", "", "| stage | games played | planned |", "|---|---|---|"]
    lines += [f"| {stage} | {games} | {total} |" for stage, games, total in progress.stages]
    return [*lines, "", remaining_line(cal, progress), ""]


def report_text(cal: Calibration, outcome: CalibrationOutcome, command: str | None = None
                ) -> str:
    """The whole report as Markdown."""
    book = cal.openings.get("file", "the start position")
    anchors = "; ".join(f"{a.name} = {a.rating:g} ({a.table.get('options', {})})"
                        for a in cal.anchors)
    stages = ["transitivity (E)", "robustness (F)"]
    if cal.spread_games:
        stages.append(f"levels {cal.spread_gap} apart (S)")
    if cal.top_games:
        stages.append("full strength against the top level (T)")
    if cal.full_games and cal.uses_table:
        stages.append("the range's top against full strength's rating (U)")
    lines = [
        f"# Calibration: {cal.name}",
        "",
        f"- Scale: Elo relative to the anchors {anchors}.",
        f"- Time control {cal.tc}; {cal.games} anchor games and {cal.ladder_games} ladder games "
        f"per level and round; paired openings from {book}.",
        "- Fit: Ordo's logistic model, a round's anchor games at once, anchors fixed; 95 % "
        "intervals from the likelihood's curvature, relative to the anchors. The ladder's "
        "games judge transitivity (E) and place no level.",
        f"- Criteria: docs/reference/elo_limit.md §5 (A–D, G) and issue #18's replication (R), "
        f"{', '.join(stages[:-1])} and {stages[-1]}; thresholds {cal.thresholds}.",
        f"- Machine: {machine()}.",
        f"- Written {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}"
        + (f" by `{command}`." if command else "."),
        "",
    ]
    if cal.report_only is not None:
        lines += _interim_lines(cal, cal.report_only)
    if outcome.anchors:
        lines += anchor_lines(outcome.anchors,
                              [a.name for a in cal.anchors if not a.plays_levels])
    if outcome.full_strength is not None:
        lines += full_strength_lines(cal, outcome.full_strength)
    for result in outcome.rounds:
        lines += [f"## {round_label(result)}", ""]
        lines.append(f"Levels played with: {table_played_text(result.table_played)}.")
        lines += [""] + _level_table(cal, result) + [""]
        verdict = result.verdict
        lines.append(f"Bias {_num(verdict.bias, '+.1f')}, RMS error {_num(verdict.rms, '.1f')}, "
                     f"max error {_num(verdict.max_error, '.1f')}, slope "
                     f"{_num(verdict.slope, '.3f')}.")
        lines.append("")
        for name, ok, detail in verdict.lines:
            lines.append(f"- {'PASS' if ok else 'FAIL'} {name}: {detail}")
        lines.append(f"- **{'PASS' if verdict.passed else 'FAIL'}** overall")
        lines += _ladder_lines(cal, result)
        lines += with_ladder_lines(cal, result)
        lines += opponent_lines(round_opponents(cal, result), cal.thresholds.agreement_se)
        lines += speed_lines(result.speeds)
        correction = result.correction
        if correction is not None:
            lines.append("")
            lines.append(f"Corrected table: `{result.corrected}` with targets "
                         f"{', '.join(map(str, sorted(correction.rows)))}.")
            full = outcome.full_strength
            if ends_at_full_strength(full, cal):
                lines.append("The curve's last point is full strength, "
                             f"{curve_end_text(cal, full)} (stage U), as a row with the top search "
                             "effort and no move error or blunder: the targets between the "
                             "strongest level and the top lie on the way to it.")
            lines += correction_notes(correction)
            outside = extrapolated_targets(cal, correction)
            if outside:
                lines.append(f"**Extrapolated rows** {', '.join(map(str, outside))}: outside the "
                             "anchors' range ± 200 (reference §5 G); marked so in the table.")
        lines.append("")
    lines.append("## Result")
    lines.append("")
    if cal.report_only is not None and all_played(cal, cal.report_only):
        lines.append("Interim: every game the file plans is played, but `--report` writes no "
                     "table. The same command without `--report` plays no more and writes the "
                     "report, the table and the page.")
    elif cal.report_only is not None:
        lines.append("Interim: the calibration has not ended, so no table is written. The same "
                     "command without `--report` resumes it and writes the report, the table and "
                     "the page when it ends.")
    elif outcome.final is None:
        lines.append(f"No table was written: {outcome.problem}")
    elif outcome.passed:
        lines.append(f"The table measured in round {outcome.rounds[-1].number} passes; it is "
                     f"written to `{outcome.final}`.")
    else:
        lines.append(f"No measured table passed within {cal.rounds} round(s). `{outcome.final}` "
                     "holds the latest correction, not yet measured: run more rounds (raise "
                     "`rounds`) or more games per level before trusting it.")
    return "\n".join(lines) + "\n"


def write_report(cal: Calibration, outcome: CalibrationOutcome, command: str | None = None,
                 folder: Path | None = None) -> list[Path]:
    """Write the plot, the report and the levels and anchors CSVs into `folder`, by default the
    calibration's (after `tables.write_final_table`, whose result the report names); an interim
    report without a measured round has no plot and no levels.csv."""
    folder = cal.out if folder is None else folder
    folder.mkdir(parents=True, exist_ok=True)
    report = folder / REPORT_NAME
    report.write_text(report_text(cal, outcome, command), encoding="utf-8")
    if not outcome.rounds:
        return [report, write_anchor_table(cal, outcome.anchors, folder)]
    rounds = [(round_label(r), r.measured) for r in outcome.rounds]
    plot = plot_calibration(rounds, [(a.name, a.rating) for a in cal.anchors],
                            folder / PLOT_NAME, f"Elo calibration: {cal.name} ({cal.tc})")
    summary = pd.concat([r.measured.assign(round=r.number) for r in outcome.rounds])
    summary.to_csv(folder / LEVELS_NAME, index=False, float_format="%.1f")
    return [plot, report, folder / LEVELS_NAME, write_anchor_table(cal, outcome.anchors, folder)]


def write_anchor_table(cal: Calibration, table: list[AnchorRating],
                       folder: Path | None = None) -> Path:
    """anchors.csv in `folder` (the calibration's by default): each anchor's rating used from
    now on (`cal` is the calibration after the round robin: measured where it measured),
    declared and measured ratings, interval, games, why an anchor is unmeasured ("bound" or
    "apart", `AnchorRating.unmeasured`) and the median nodes/s it searched at."""
    used = cal.ratings
    path = (cal.out if folder is None else folder) / ANCHORS_NAME
    pd.DataFrame([(r.name, used[r.name], r.declared, r.measured, r.halfwidth, r.games, r.pinned,
                   r.unmeasured, r.nps) for r in table],
                 columns=["name", "rating", "declared", "measured", "halfwidth", "games",
                          "pinned", "unmeasured", "nps"]).to_csv(path, index=False,
                                                                 float_format="%.1f")
    return path
