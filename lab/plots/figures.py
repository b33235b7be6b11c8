"""Figures without pyplot: a new Agg-backed figure, saving it as PNG or SVG, and shared labels.

The plots build `matplotlib.figure.Figure` objects directly on an Agg canvas, so they need no
display, keep no global pyplot state and can run in worker threads or tests side by side.
matplotlib is imported inside the functions that draw (here and in every plot module), so a run
that only plays games does not load it before its first `go`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import chess
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Output formats, chosen by the file suffix.
FORMATS = ("png", "svg")
#: Resolution of PNG output.
DPI = 110


def new_figure(width: float, height: float, constrained: bool = True) -> Figure:
    """An empty figure of `width` × `height` inches on an Agg canvas, laid out automatically
    (constrained layout) unless `constrained` is False: then the caller places its axes with
    fixed margins, which saves measuring every text on each draw (a third of the time the
    report page spends drawing its figures)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained" if constrained else None)
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig: Figure, path: str | Path) -> Path:
    """Write `fig` to `path` (PNG or SVG, from the suffix), creating folders; returns the path."""
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise ValueError(f"cannot write plot {path}: the suffix must be .png or .svg")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format=fmt, dpi=DPI)
    return path


def require_columns(frame: pd.DataFrame, columns: list[str], what: str) -> None:
    """Raise a ValueError naming the missing columns if `frame` lacks any of `columns`."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"the {what} frame has no column {', '.join(map(repr, missing))}")


def numeric(frame: pd.DataFrame, column: str) -> pd.Series:
    """`frame[column]` as floats (missing column or unparsable values give NaN)."""
    if column not in frame.columns:
        return pd.Series(float("nan"), index=frame.index, dtype=float)
    return pd.to_numeric(frame[column], errors="coerce").astype(float)


def log_scale_if_wide(ax: Axes, values: pd.Series, ratio: float = 20.0) -> None:
    """Put `ax` on a log y scale when the positive `values` span more than `ratio` (engines of
    very different speeds, a first-move default far from what follows), else start y at 0."""
    positive = values[values > 0]
    if len(positive) and positive.max() > ratio * positive.min():
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)


def player_labels(moves: pd.DataFrame) -> pd.Series:
    """Per move, the mover's label: its engine name, plus its time manager (`tm_tm`) when known.

    One line per label in the summary plots, so two configurations of one engine that differ
    only by time manager are told apart.
    """
    engine = moves["engine"].astype(str)
    if "tm_tm" not in moves.columns:
        return engine
    tm = moves["tm_tm"]
    known = tm.notna() & (tm.astype(str) != "")
    return engine.where(~known, engine + " [" + tm.astype(str) + "]")


def move_numbers(moves: pd.DataFrame, games: pd.DataFrame | None = None) -> pd.Series:
    """Per move, the chess move number (1. e4 e5: both move 1) of the position it was made in.

    The store's `ply` is the number of half-moves played from the game's opening FEN once this
    move is made (the game runner records `len(board.move_stack)` after the push: 1 for the
    first move, book moves included). When `games` gives each game's `opening_fen`, the FEN's
    own ply (python-chess `Board.ply()`: 2·(fullmove − 1), + 1 with Black to move) is added;
    without it the FEN is taken to be the standard start. An unreadable FEN is a ValueError
    naming its game.
    """
    ply = moves["ply"].astype(int)
    if games is not None and {"game_id", "opening_fen"} <= set(games.columns):
        offsets = {
            game_id: _fen_ply(game_id, fen)
            for game_id, fen in zip(games["game_id"], games["opening_fen"], strict=True)
        }
        ply = ply + moves["game_id"].map(offsets).fillna(0).astype(int)
    return (ply + 1) // 2


def _fen_ply(game_id: str, fen: object) -> int:
    if not isinstance(fen, str) or not fen:
        return 0
    try:
        return chess.Board(fen).ply()
    except ValueError as exc:
        raise ValueError(f"game {game_id}: bad opening FEN {fen!r}: {exc}") from None
