"""One game, move by move: what the time manager planned, what it used and what it believed.

Panels, sharing the move-number axis: time used per move (bars) with the manager's budget
(markers); the clock left for each side; and, for engines that send `info string tm` telemetry,
the smooth manager's estimates (docs/reference/smooth_time_manager.md): the NPS estimate (§3)
against the NPS the engine reported, the tree-reuse factor r (§4.1) and the time-use factor u
(§4.2), and the moves-left estimate M (§2 step 4, §5) against the moves the side really had left.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from lab.plots.figures import (
    log_scale_if_wide,
    move_numbers,
    new_figure,
    numeric,
    require_columns,
    save_figure,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Colour of each side's bars and lines (White cannot be drawn in white).
SIDE_COLOURS = {"white": "tab:blue", "black": "tab:orange"}
#: Colour of each side's budget markers: a darker shade of its bars.
BUDGET_COLOURS = {"white": "navy", "black": "saddlebrown"}
#: Horizontal offset of each side's bars within a move number.
_BAR_OFFSET = {"white": -0.2, "black": 0.2}

_COLUMNS = ["game_id", "side", "engine", "ply", "elapsed_ms"]


def game_moves(
    moves: pd.DataFrame, game_id: str, games: pd.DataFrame | None = None
) -> pd.DataFrame:
    """The moves of `game_id` in order, with `move_number` (from its opening FEN when `games`
    has it); a ValueError names an unknown id."""
    require_columns(moves, _COLUMNS, "moves")
    game = moves[moves["game_id"].astype(str) == str(game_id)].sort_values("ply")
    if game.empty:
        raise ValueError(f"no moves recorded for game {game_id!r}")
    return game.assign(move_number=move_numbers(game, games))


def moves_left_actual(game: pd.DataFrame) -> pd.Series:
    """For each move, how many moves its side made from this one to the end of the game.

    This is what the moves-left estimate M tries to predict: M counts the current move, since
    the budget is the remaining time divided by M (reference §2 steps 11-12).
    """
    order = game.sort_values("ply", ascending=False)
    return order.groupby("side").cumcount().add(1).reindex(game.index)


def _sides(game: pd.DataFrame) -> list[tuple[str, pd.DataFrame, str]]:
    """(side, its moves, its legend name) for White then Black."""
    out = []
    for side in ("white", "black"):
        rows = game[game["side"] == side]
        if not rows.empty:
            out.append((side, rows, f"{rows['engine'].iloc[0]} ({side.capitalize()})"))
    return out


def _has(rows: pd.DataFrame, column: str) -> bool:
    return bool(numeric(rows, column).notna().any())


def _time_panel(ax: Axes, sides: list[tuple[str, pd.DataFrame, str]]) -> None:
    for side, rows, name in sides:
        x = rows["move_number"] + _BAR_OFFSET[side]
        ax.bar(
            x, numeric(rows, "elapsed_ms") * 1e-3, width=0.4, color=SIDE_COLOURS[side],
            alpha=0.75, label=f"{name}: time used",
        )
        if _has(rows, "tm_budget_ms"):
            ax.plot(
                x, numeric(rows, "tm_budget_ms") * 1e-3, linestyle="none", marker="_",
                markersize=11, markeredgewidth=2.2, color=BUDGET_COLOURS[side],
                label=f"{name}: budget",
            )
    if any(_has(rows, "tm_budget_ms") for _, rows, _ in sides):
        ax.set_title("Time per move: used (bars) and the manager's budget (markers)")
    else:
        ax.set_title("Time used per move")
    ax.set_ylabel("time (s)")
    ax.set_ylim(bottom=0)


def _clock_panel(ax: Axes, sides: list[tuple[str, pd.DataFrame, str]]) -> bool:
    drawn = False
    for side, rows, name in sides:
        if _has(rows, "clock_after_ms"):
            ax.step(
                rows["move_number"], numeric(rows, "clock_after_ms") * 1e-3, where="post",
                color=SIDE_COLOURS[side], label=name, marker=".",
            )
            drawn = True
    ax.set_title("Clock left after the move")
    ax.set_ylabel("clock (s)")
    if drawn:
        ax.set_ylim(bottom=0)
    else:
        ax.text(0.5, 0.5, "no clock (fixed nodes or time per move)", ha="center", va="center",
                transform=ax.transAxes, color="0.4")
    return drawn


def _nps_panel(ax: Axes, sides: list[tuple[str, pd.DataFrame, str]]) -> None:
    drawn = []
    for side, rows, name in sides:
        if not _has(rows, "tm_nps_est"):
            continue
        colour = SIDE_COLOURS[side]
        drawn.append(numeric(rows, "tm_nps_est"))
        ax.plot(rows["move_number"], drawn[-1], "-o", color=colour,
                markersize=3, label=f"{name}: NPS estimate")
        if _has(rows, "nps"):
            drawn.append(numeric(rows, "nps"))
            ax.plot(rows["move_number"], drawn[-1], ":", color=colour,
                    label=f"{name}: NPS reported")
    ax.set_title("Smooth manager: NPS estimate (§3) and the NPS the engine reported")
    ax.set_ylabel("nodes per second")
    log_scale_if_wide(ax, pd.concat(drawn))


def _factor_panel(ax: Axes, sides: list[tuple[str, pd.DataFrame, str]]) -> None:
    for side, rows, name in sides:
        colour = SIDE_COLOURS[side]
        if _has(rows, "tm_tree_reuse"):
            ax.plot(rows["move_number"], numeric(rows, "tm_tree_reuse"), "-o", color=colour,
                    markersize=3, label=f"{name}: tree reuse r")
        if _has(rows, "tm_timeuse"):
            ax.plot(rows["move_number"], numeric(rows, "tm_timeuse"), "--s", color=colour,
                    markersize=3, label=f"{name}: time use u")
    ax.set_title("Smooth manager: tree-reuse factor r (§4.1) and time-use factor u (§4.2)")
    ax.set_ylabel("factor (fraction)")
    ax.set_ylim(bottom=0)


def _moves_left_panel(
    ax: Axes, sides: list[tuple[str, pd.DataFrame, str]], actual: pd.Series
) -> None:
    for side, rows, name in sides:
        if not _has(rows, "tm_moves_left"):
            continue
        colour = SIDE_COLOURS[side]
        ax.plot(rows["move_number"], numeric(rows, "tm_moves_left"), "-o", color=colour,
                markersize=3, label=f"{name}: estimate M")
        ax.plot(rows["move_number"], actual.loc[rows.index], ":", color=colour,
                label=f"{name}: moves it really had left")
    ax.set_title("Moves-left estimate (§5) and the moves actually left in this game")
    ax.set_ylabel("moves")
    ax.set_ylim(bottom=0)


def game_time_figure(
    moves: pd.DataFrame, game_id: str, games: pd.DataFrame | None = None
) -> Figure:
    """The one-game picture of `game_id` (see the module docstring) as a Figure.

    The telemetry panels appear only when some side has the matching `tm_*` values; a game
    between engines without telemetry (Stockfish) shows time used and clocks only. `games`,
    when given, numbers the moves from the game's opening FEN and puts its result in the title.
    """
    from matplotlib.ticker import MaxNLocator

    game = game_moves(moves, game_id, games)
    sides = _sides(game)
    panels = [_time_panel, _clock_panel]
    if any(_has(rows, "tm_nps_est") for _, rows, _ in sides):
        panels.append(_nps_panel)
    if any(_has(rows, "tm_tree_reuse") or _has(rows, "tm_timeuse") for _, rows, _ in sides):
        panels.append(_factor_panel)
    actual = moves_left_actual(game)
    if any(_has(rows, "tm_moves_left") for _, rows, _ in sides):
        panels.append(lambda ax, s: _moves_left_panel(ax, s, actual))

    fig = new_figure(12, 2.9 * len(panels) + 0.8)
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    for ax, panel in zip(axes, panels, strict=True):
        panel(ax, sides)
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="best", fontsize="small")
    axes[-1].set_xlabel("move number")
    axes[-1].xaxis.set_major_locator(MaxNLocator(integer=True))

    white = game.loc[game["side"] == "white", "engine"]
    black = game.loc[game["side"] == "black", "engine"]
    title = (
        f"Game {game_id}: {white.iloc[0] if len(white) else '?'} (White) – "
        f"{black.iloc[0] if len(black) else '?'} (Black), {len(game)} plies"
    )
    if games is not None and {"game_id", "result"} <= set(games.columns):
        row = games[games["game_id"].astype(str) == str(game_id)]
        if not row.empty:
            title += f", {row['result'].iloc[0]}"
            if "reason" in row.columns and row["reason"].iloc[0]:
                title += f" ({row['reason'].iloc[0]})"
    if len(panels) == 2:
        title += "\nno time-manager telemetry in this game"
    fig.suptitle(title, fontsize="x-large")
    return fig


def plot_game_time(
    moves: pd.DataFrame, game_id: str, path: str | Path, games: pd.DataFrame | None = None
) -> Path:
    """Write the one-game picture of `game_id` to `path` (.png or .svg); returns the path."""
    return save_figure(game_time_figure(moves, game_id, games), path)
