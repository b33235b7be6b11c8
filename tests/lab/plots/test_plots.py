"""lab.plots on synthetic frames shaped like `lab.store`'s: what each figure shows, and its files.

The figures are inspected as matplotlib objects (titles, lines, their data, legends); the files
are checked as real PNG and SVG.
"""

from __future__ import annotations

import io
import math
import re
import xml.etree.ElementTree as ET

import chess
import numpy as np
import pandas as pd
import pytest

from lab.plots import (
    game_time_figure,
    plot_game_time,
    plot_ratings,
    plot_score_over_time,
    plot_time_usage,
    ratings_figure,
    score_over_time_figure,
    time_usage_figure,
)
from lab.plots.dots import Dots
from lab.plots.figures import move_numbers, player_labels
from lab.plots.game import moves_left_actual
from lab.plots.score import gauntlet_challenger, running_score
from lab.plots.time_usage import fraction_of_time_used, nodes_spread

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
TM_KEYS = [
    "tm_tm", "tm_budget_ms", "tm_hard_ms", "tm_used_ms", "tm_nodes", "tm_reused_nodes",
    "tm_moves_left", "tm_nps_est", "tm_tree_reuse", "tm_timeuse", "tm_stop_reason", "tm_ply",
]


def mle(ply: int, midpoint: float = 51.5, steepness: float = 7.0) -> float:
    """Moves-left estimate, docs/reference/smooth_time_manager.md §5."""
    m = ply / 2
    return midpoint * (1 + 2 * (m / midpoint) ** steepness) ** (1 / steepness) - m


def synthetic_frames(
    n_games: int = 4,
    plies: tuple[int, ...] = (60, 81),
    players: tuple[str, str] = ("tempo", "stockfish"),
    telemetry: tuple[bool, bool] = (True, False),
    tm_columns: bool = True,
    seed: int = 1,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(games, moves) of games at 10+0.1 s between two players, colours alternating.

    Each side spends about 70 % of a smooth-like budget (clock / moves-left) per move. A player
    with telemetry gets `tm_*` values, the other NaN there (as Stockfish); with `tm_columns`
    false the columns are absent altogether (a store that never saw telemetry).
    """
    rng = np.random.default_rng(seed)
    games, moves = [], []
    for g in range(n_games):
        white, black = players if g % 2 == 0 else players[::-1]
        n_plies = plies[g % len(plies)]
        clocks = {"white": 10_000.0, "black": 10_000.0}
        game_id = f"g{g:03d}"
        for ply in range(n_plies):
            side = "white" if ply % 2 == 0 else "black"
            engine = white if side == "white" else black
            before = clocks[side]
            moves_left = mle(ply)
            budget = (before + 100.0 * (moves_left - 1)) / moves_left
            elapsed = 0.7 * budget * rng.uniform(0.6, 1.4)
            clocks[side] = before - elapsed + 100.0
            nps = 20_000.0 if engine == players[0] else 1_000_000.0
            row = {
                "game_id": game_id, "white": white, "black": black, "side": side,
                "engine": engine, "ply": ply + 1, "move": "e2e4", "san": "e4",
                "elapsed_ms": elapsed, "clock_before_ms": before, "clock_after_ms": clocks[side],
                "reported_ms": elapsed - 2, "depth": 8, "seldepth": 12, "score_cp": 10,
                "score_mate": math.nan, "nodes": int(nps * elapsed / 1000),
                "nps": nps * rng.uniform(0.9, 1.1), "pv": "e2e4",
            }
            if tm_columns:
                row.update(dict.fromkeys(TM_KEYS, math.nan))
            if telemetry[players.index(engine)]:
                row.update(
                    tm_tm="smooth", tm_budget_ms=budget, tm_hard_ms=3 * budget,
                    tm_used_ms=elapsed - 1, tm_nodes=row["nodes"], tm_reused_nodes=0,
                    tm_moves_left=moves_left, tm_nps_est=nps, tm_tree_reuse=0.5 + 0.002 * ply,
                    tm_timeuse=0.7 - 0.001 * ply, tm_stop_reason="budget", tm_ply=ply,
                )
            moves.append(row)
        games.append(
            {
                "game_id": game_id, "round": g // 2 + 1, "pair_id": f"p{g // 2}",
                "white": white, "black": black, "result": ["1-0", "0-1", "1/2-1/2"][g % 3],
                "termination": "normal", "reason": "", "tc": "10+0.1",
                "opening_fen": chess.STARTING_FEN, "started_at": f"2026-11-21T12:{g:02d}:00",
                "finished_at": f"2026-11-21T12:{g:02d}:30", "plies": n_plies,
            }
        )
    return pd.DataFrame(games), pd.DataFrame(moves)


def axes_by_title(fig) -> dict[str, object]:
    """The figure's titled axes, keyed by title."""
    return {ax.get_title(): ax for ax in fig.axes if ax.get_title()}


def find_axes(fig, start: str):
    matches = [ax for title, ax in axes_by_title(fig).items() if title.startswith(start)]
    assert len(matches) == 1, f"no single axes titled {start!r}: {list(axes_by_title(fig))}"
    return matches[0]


def line_labels(ax) -> list[str]:
    labels = (line.get_label() for line in ax.get_lines())
    return sorted(label for label in labels if not label.startswith("_"))


def legend_texts(ax) -> list[str]:
    legend = ax.get_legend()
    assert legend is not None, f"axes {ax.get_title()!r} has no legend"
    return sorted(t.get_text() for t in legend.get_texts())


# --- many games --------------------------------------------------------------------------------


def test_time_usage_has_one_line_per_engine_and_manager_plus_budget():
    games, moves = synthetic_frames(n_games=4)
    fig = time_usage_figure(moves, games)
    assert "4 games" in fig.get_suptitle() and "10+0.1" in fig.get_suptitle()
    time_ax = find_axes(fig, "Time used per move")
    assert time_ax.get_ylabel() == "time used (s)" and time_ax.get_xlabel() == "move number"
    # Stockfish has no telemetry: no manager in its label and no budget line.
    expected = ["stockfish", "tempo [smooth]", "tempo [smooth]: budget"]
    assert line_labels(time_ax) == expected
    assert legend_texts(time_ax) == expected
    # One spread band per engine.
    assert len(time_ax.collections) == 2
    # Games of 60 and 81 plies: move numbers 1..41, times within what the moves used.
    for line in time_ax.get_lines():
        x = np.asarray(line.get_xdata())
        assert x.min() == 1 and x.max() in (40, 41)
    used = moves["elapsed_ms"] / 1000
    sf = next(ln for ln in time_ax.get_lines() if ln.get_label() == "stockfish")
    assert used.min() <= np.min(sf.get_ydata()) and np.max(sf.get_ydata()) <= used.max()

    nodes_ax = find_axes(fig, "Nodes per move")
    assert nodes_ax.get_yscale() == "log"
    assert line_labels(nodes_ax) == ["stockfish", "tempo [smooth]"]
    frac_ax = find_axes(fig, "Fraction of the available time")
    assert legend_texts(frac_ax) == ["stockfish (4 games)", "tempo [smooth] (4 games)"]


def test_jittered_values_are_one_path_per_series_in_svg():
    """The per-side values over the boxes are one Dots path per label holding every value (not
    a marker element per value): in the SVG only the legend's sample markers remain."""
    games, moves = synthetic_frames(n_games=20)
    fig = time_usage_figure(moves, games)
    frac_ax = find_axes(fig, "Fraction of the available time")
    series = [artist for artist in frac_ax.get_children() if isinstance(artist, Dots)]
    expected = fraction_of_time_used(moves.assign(label=player_labels(moves)))
    assert sorted(sorted(d.xy[:, 1]) for d in series) == sorted(
        sorted(group) for _, group in expected.groupby("label")["fraction"])
    assert len(expected) == 40 and frac_ax.get_ylim() == (0, 1.05)
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")
    dot_markers = re.findall(r"<use [^>]*fill-opacity: 0\.7", buffer.getvalue())
    assert len(dot_markers) == 4  # the legend's two samples in each box panel, no dot per value


def test_time_usage_keeps_fixed_margins_only_for_labels_that_fit_them():
    games, moves = synthetic_frames(n_games=4)
    assert time_usage_figure(moves, games).get_layout_engine() is None
    long = moves.assign(engine=moves["engine"].replace("stockfish", "stockfish 17.1 nnue x86-64"))
    fig = time_usage_figure(long, games)
    assert type(fig.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"
    fig.canvas.draw()
    frac_ax = find_axes(fig, "Fraction of the available time")
    labels = frac_ax.get_xticklabels()
    renderer = fig.canvas.get_renderer()
    assert all(label.get_window_extent(renderer).y0 >= 0 for label in labels)  # not cut off


def test_time_usage_mean_and_quartiles_are_those_of_the_moves():
    """Hand-made: engine A spends 100 and 300 ms on move 1 of two games, 200 and 200 on move 2."""
    rows = []
    for game, times in (("a", (100.0, 200.0)), ("b", (300.0, 200.0))):
        for i, elapsed in enumerate(times):
            rows.append({"game_id": game, "side": "white", "engine": "A", "ply": 2 * i + 1,
                         "elapsed_ms": elapsed, "clock_after_ms": 1000.0, "nodes": 1000})
    fig = time_usage_figure(pd.DataFrame(rows))
    time_ax = find_axes(fig, "Time used per move")
    (line,) = time_ax.get_lines()
    assert list(line.get_xdata()) == [1, 2]
    assert np.allclose(line.get_ydata(), [0.2, 0.2])
    (band,) = time_ax.collections
    low, high = band.get_paths()[0].vertices[:, 1].min(), band.get_paths()[0].vertices[:, 1].max()
    assert low == pytest.approx(0.15) and high == pytest.approx(0.25)  # quartiles of 100, 300 ms
    assert find_axes(fig, "Nodes per move").get_yscale() == "linear"  # one speed: no log scale


def test_move_numbers_count_from_the_opening_fen():
    six_ply = "rnbqkb1r/pp2pppp/2p2n2/3p4/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 2 4"
    black_to_move = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    games = pd.DataFrame({"game_id": ["a", "b", "c"],
                          "opening_fen": [six_ply, black_to_move, chess.STARTING_FEN]})
    # `ply` as the game runner records it: half-moves played once the move is made.
    moves = pd.DataFrame({"game_id": ["a", "a", "b", "b", "c", "c"], "ply": [1, 2, 1, 2, 1, 2]})
    # a: after 1. d4 d5 2. c4 c6 3. Nc3 Nf6 the engines play 4. and 4. ...;
    # b: from 1. e4 Black plays 1. ... and White 2.
    assert list(move_numbers(moves, games)) == [4, 4, 1, 2, 1, 1]
    assert list(move_numbers(moves)) == [1, 1, 1, 1, 1, 1]
    bad = games.assign(opening_fen=["not a fen", "", chess.STARTING_FEN])
    with pytest.raises(ValueError, match="game a: bad opening FEN"):
        move_numbers(moves, bad)


def test_fraction_of_available_time_counts_increments_and_the_clock_left():
    # 10 s + 1 s/move: three moves of 2 s leave 10 - 6 + 3 = 7 s; available 13 s, used 6 s.
    rows = [
        {"game_id": "g", "side": "white", "engine": "A", "ply": 2 * i + 1, "elapsed_ms": 2000.0,
         "clock_after_ms": 10_000.0 - 2000.0 * (i + 1) + 1000.0 * (i + 1)}
        for i in range(3)
    ]
    rows += [{"game_id": "g", "side": "black", "engine": "B", "ply": 2, "elapsed_ms": 500.0,
              "clock_after_ms": math.nan}]
    fractions = fraction_of_time_used(pd.DataFrame(rows))
    assert list(fractions["label"]) == ["A"]  # B has no clock: left out
    assert fractions["fraction"].iloc[0] == pytest.approx(6 / 13)


def test_nodes_spread_panel_has_one_value_per_game_side_over_its_first_40_moves():
    """Issue 16: the seed's second principle beside time per move. Side A alternates 100/300
    nodes for 40 moves (CV 100*sqrt(40/39)/200 = 0.5064), then 10000 (left out); side B is even."""
    rows = [{"game_id": "g", "side": "white", "engine": "A", "ply": 2 * i + 1,
             "elapsed_ms": 10.0, "nodes": (100, 300)[i % 2] if i < 40 else 10_000}
            for i in range(50)]
    rows += [{"game_id": "g", "side": "black", "engine": "B", "ply": 2 * i + 2,
              "elapsed_ms": 10.0, "nodes": 500} for i in range(50)]
    moves = pd.DataFrame(rows)
    spread = nodes_spread(moves)
    assert sorted(spread["label"]) == ["A", "B"]
    cv = dict(zip(spread["label"], spread["cv"], strict=True))
    assert cv["A"] == pytest.approx(100 * math.sqrt(40 / 39) / 200)
    assert cv["B"] == 0.0
    fig = time_usage_figure(moves)
    spread_ax = find_axes(fig, "Spread of nodes per move")
    assert legend_texts(spread_ax) == ["A (1 game)", "B (1 game)"]
    no_nodes = time_usage_figure(moves.assign(nodes=None))
    texts = [t.get_text() for t in find_axes(no_nodes, "Spread of nodes per move").texts]
    assert any("no node counts" in t for t in texts)


def test_time_usage_without_telemetry_columns_still_plots_time_used():
    games, moves = synthetic_frames(
        n_games=2, players=("sf-a", "sf-b"), telemetry=(False, False), tm_columns=False
    )
    assert not any(c.startswith("tm_") for c in moves.columns)
    fig = time_usage_figure(moves, games)
    time_ax = find_axes(fig, "Time used per move")
    assert line_labels(time_ax) == ["sf-a", "sf-b"]
    assert "budget" not in time_ax.get_title()
    assert "2 games" in fig.get_suptitle()


def test_time_usage_without_clocks_or_nodes_says_so():
    _, moves = synthetic_frames(n_games=2)
    moves = moves.assign(clock_after_ms=math.nan, clock_before_ms=math.nan, nodes=None)
    fig = time_usage_figure(moves)
    frac_texts = [t.get_text() for t in find_axes(fig, "Fraction of the available").texts]
    assert any("no clock data" in t for t in frac_texts)
    node_texts = [t.get_text() for t in find_axes(fig, "Nodes per move").texts]
    assert any("no node counts" in t for t in node_texts)


def test_time_usage_rejects_empty_or_malformed_frames():
    _, moves = synthetic_frames(n_games=1)
    with pytest.raises(ValueError, match="no moves"):
        time_usage_figure(moves.iloc[0:0])
    with pytest.raises(ValueError, match="'elapsed_ms'"):
        time_usage_figure(moves.drop(columns=["elapsed_ms"]))


# --- one game ----------------------------------------------------------------------------------


def test_game_picture_with_telemetry_has_every_panel():
    _, moves = synthetic_frames(n_games=2)
    fig = game_time_figure(moves, "g000")  # tempo White, stockfish Black, 60 plies
    assert "g000" in fig.get_suptitle() and "tempo (White)" in fig.get_suptitle()
    titles = list(axes_by_title(fig))
    assert len(titles) == 5
    time_ax = find_axes(fig, "Time per move")
    assert len(time_ax.patches) == 60  # one bar per ply
    assert max(p.get_height() for p in time_ax.patches) == pytest.approx(
        moves.loc[moves["game_id"] == "g000", "elapsed_ms"].max() / 1000
    )
    assert line_labels(time_ax) == ["tempo (White): budget"]
    assert legend_texts(time_ax) == [
        "stockfish (Black): time used", "tempo (White): budget", "tempo (White): time used",
    ]
    clock_ax = find_axes(fig, "Clock left")
    assert clock_ax.get_ylabel() == "clock (s)"
    assert line_labels(clock_ax) == ["stockfish (Black)", "tempo (White)"]
    nps_ax = find_axes(fig, "Smooth manager: NPS")
    assert line_labels(nps_ax) == ["tempo (White): NPS estimate", "tempo (White): NPS reported"]
    factor_ax = find_axes(fig, "Smooth manager: tree-reuse")
    assert line_labels(factor_ax) == ["tempo (White): time use u", "tempo (White): tree reuse r"]
    r = next(ln for ln in factor_ax.get_lines() if "tree reuse" in ln.get_label())
    assert np.allclose(r.get_ydata(), 0.5 + 0.002 * np.arange(0, 60, 2))
    left_ax = find_axes(fig, "Moves-left estimate")
    estimate, actual = sorted(left_ax.get_lines(), key=lambda ln: ln.get_label())
    assert estimate.get_ydata()[0] == pytest.approx(51.5)  # MLE(0) = midpoint (§5)
    assert list(actual.get_ydata()) == list(range(30, 0, -1))  # White made 30 moves


def test_nps_panel_turns_logarithmic_when_the_estimate_spans_decades():
    """The smooth manager starts from 20000 NPS (§1c); a slow engine then measures ~800."""
    _, moves = synthetic_frames(n_games=1)
    nps_ax = find_axes(game_time_figure(moves, "g000"), "Smooth manager: NPS")
    assert nps_ax.get_yscale() == "linear" and nps_ax.get_ylim()[0] == 0
    ours = moves["engine"] == "tempo"
    moves.loc[ours, ["tm_nps_est", "nps"]] = 800.0
    moves.loc[moves.index[0], "tm_nps_est"] = 20_000.0
    nps_ax = find_axes(game_time_figure(moves, "g000"), "Smooth manager: NPS")
    assert nps_ax.get_yscale() == "log"


def test_game_picture_without_telemetry_shows_time_and_clock_only():
    _, moves = synthetic_frames(n_games=2, players=("sf-a", "sf-b"), telemetry=(False, False))
    fig = game_time_figure(moves, "g001")
    assert len(axes_by_title(fig)) == 2
    assert "no time-manager telemetry" in fig.get_suptitle()
    time_ax = find_axes(fig, "Time used per move")
    assert len(time_ax.patches) == 81 and line_labels(time_ax) == []


def test_game_picture_names_an_unknown_game():
    _, moves = synthetic_frames(n_games=1)
    with pytest.raises(ValueError, match="'nope'"):
        game_time_figure(moves, "nope")


def test_moves_left_actual_counts_this_move_and_the_sides_later_ones():
    game = pd.DataFrame({"ply": range(1, 6), "side": ["white", "black"] * 2 + ["white"]})
    assert list(moves_left_actual(game)) == [3, 2, 2, 1, 1]


# --- ratings and score -------------------------------------------------------------------------


def test_ratings_rows_best_first_with_asymmetric_bars():
    frame = pd.DataFrame(
        {"player": ["low", "top", "mid"], "rating": [-120.0, 350.0, 0.0],
         "lower": [-180.0, 300.0, math.nan], "upper": [-70.0, 410.0, math.nan]}
    )
    fig = ratings_figure(frame)
    (ax,) = fig.axes
    assert [t.get_text() for t in ax.get_yticklabels()] == ["top", "mid", "low"]
    assert ax.get_xlabel() == "rating (Elo)"
    _, _, (bars,) = ax.containers[0]
    segments = {round(seg[0][1]): (seg[0][0], seg[1][0]) for seg in bars.get_segments()}
    assert segments[2] == (300.0, 410.0)  # top row
    assert segments[0] == (-180.0, -70.0)
    assert segments[1] == (0.0, 0.0)  # the anchor has no interval
    labels = sorted(t.get_text() for t in ax.texts)
    assert labels == ["-120 (−60/+50)", "0", "350 (−50/+60)"]


def test_ratings_from_error_column_and_bounds():
    frame = pd.DataFrame(
        {"player": ["a", "b"], "rating": [500.0, -500.0], "error": [math.nan, math.nan],
         "bound": [">", "<"]}
    )
    (ax,) = ratings_figure(frame).axes
    assert legend_texts(ax) == ["bound (< rating)", "bound (> rating)", "rating with interval"]
    assert sorted(t.get_text() for t in ax.texts) == ["<-500", ">500"]
    (ax,) = ratings_figure(pd.DataFrame({"player": ["a"], "rating": [10.0], "error": [20]})).axes
    _, _, (bars,) = ax.containers[0]
    assert [tuple(p[0] for p in seg) for seg in bars.get_segments()] == [(-10.0, 30.0)]
    with pytest.raises(ValueError, match="'rating'"):
        ratings_figure(pd.DataFrame({"player": ["a"]}))


def test_ratings_without_finite_values():
    frame = pd.DataFrame({"player": ["a", "b", "c"], "rating": [10.0, math.nan, -10.0],
                          "lower": [-math.inf, math.nan, -30.0], "upper": [math.inf, 5.0, 10.0],
                          "bound": [">", "", ""]})
    (ax,) = ratings_figure(frame).axes
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "c", "b"]
    assert sorted(t.get_text() for t in ax.texts) == ["-10 (−20/+20)", ">10", "no rating"]
    assert all(np.isfinite(ax.get_xlim()))
    with pytest.raises(ValueError, match="no player has a finite rating"):
        ratings_figure(frame.assign(rating=math.nan))


def test_running_score_and_its_interval():
    games = pd.DataFrame(
        {"game_id": ["1", "2", "3"], "white": ["c", "x", "c"], "black": ["x", "c", "y"],
         "result": ["1-0", "1/2-1/2", "0-1"],
         "finished_at": ["t1", "t2", "t3"]}
    )
    table = running_score(games, "c")
    assert list(table["points"]) == [1.0, 0.5, 0.0]
    assert list(table["score"]) == pytest.approx([1.0, 0.75, 0.5])
    assert list(table["opponent"]) == ["x", "x", "y"]
    # After 3 games: σ² = (¼ + 0 + ¼)/3, interval ½ ± 1.96·√(σ²/3) (reference §4.2).
    half = 1.959964 * math.sqrt((0.5 / 3) / 3)
    assert table["score_lower"].iloc[-1] == pytest.approx(0.5 - half, abs=1e-6)
    assert table["score_upper"].iloc[-1] == pytest.approx(0.5 + half, abs=1e-6)
    assert table["elo"].iloc[-1] == pytest.approx(0.0, abs=1e-9)


def test_score_figure_one_line_per_opponent_and_elo_axis():
    games, _ = synthetic_frames(n_games=6, plies=(2,), players=("c", "x"))
    more, _ = synthetic_frames(n_games=4, plies=(2,), players=("c", "y"))
    games = pd.concat([games, more.assign(game_id="h" + more["game_id"])])
    assert gauntlet_challenger(games) == "c"
    fig = score_over_time_figure(games, "c")
    ax = next(a for a in fig.axes if a.get_title())
    assert "c: score over time, 10 games" in ax.get_title()
    assert line_labels(ax) == ["c: running score", "even score", "vs x", "vs y"]
    assert ax.get_ylim() == (0.0, 1.0)
    assert any(a.get_ylabel() == "Elo difference" for a in ax.child_axes)
    with pytest.raises(ValueError, match="'z'"):
        running_score(games, "z")


def test_gauntlet_challenger_needs_a_player_in_every_game():
    games = pd.DataFrame({"white": ["a", "b"], "black": ["c", "d"]})
    with pytest.raises(ValueError, match="no player is in every game"):
        gauntlet_challenger(games)


# --- files -------------------------------------------------------------------------------------


def test_plots_write_nonempty_png_and_svg(tmp_path):
    games, moves = synthetic_frames(n_games=3)
    ratings = pd.DataFrame({"player": ["tempo", "stockfish"], "rating": [0.0, 300.0],
                            "error": [math.nan, 40.0]})
    written = [
        plot_time_usage(moves, games, tmp_path / "usage.png"),
        plot_game_time(moves, "g001", tmp_path / "sub" / "game.png"),
        plot_ratings(ratings, tmp_path / "ratings.png"),
        plot_score_over_time(games, "tempo", tmp_path / "score.png"),
    ]
    for path in written:
        data = path.read_bytes()
        assert data.startswith(PNG_SIGNATURE) and len(data) > 10_000, path
    svg = plot_time_usage(moves, games, tmp_path / "usage.svg")
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg")
    assert "Time used per move" in svg.read_text()
    with pytest.raises(ValueError, match=r"usage\.pdf"):
        plot_time_usage(moves, games, tmp_path / "usage.pdf")
