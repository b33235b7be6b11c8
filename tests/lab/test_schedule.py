"""The schedule: game counts, deterministic ids, paired openings with colours reversed."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import chess

from lab.experiment import BookConfig, Experiment, load_book_for
from lab.records import EngineSpec
from lab.schedule import build_schedule, encounters, total_games
from timecontrol.control import parse_time_control

BOOK = Path(__file__).parents[2] / "experiments" / "books" / "openings_8ply.epd"


def experiment(names=("a", "b", "c"), schedule="gauntlet", challengers=("a",), rounds=None,
               games=None, paired=True, order="sequential", seed=0, book=True) -> Experiment:
    exp = Experiment(
        name="s", engines=[EngineSpec(n, ["/usr/games/stockfish"]) for n in names],
        tc=parse_time_control("1+0.01"),
        schedule=schedule, challengers=list(challengers), rounds=rounds, games=games,
        openings=BookConfig(file=str(BOOK) if book else None, order=order, seed=seed,
                            paired=paired),
    )
    exp.book = load_book_for(exp)
    return exp


def test_gauntlet_counts_and_pairs():
    exp = experiment(rounds=3)
    tasks = build_schedule(exp)
    assert encounters(exp) == [("a", "b"), ("a", "c")]
    assert len(tasks) == total_games(exp) == 3 * 2 * 2
    assert all("a" in (t.white.name, t.black.name) for t in tasks)
    assert len({t.game_id for t in tasks}) == len(tasks)
    by_pair: dict[str, list] = {}
    for task in tasks:
        by_pair.setdefault(task.pair_id, []).append(task)
    assert len(by_pair) == 6
    for first, second in by_pair.values():
        assert first.opening_fen == second.opening_fen
        assert (first.white.name, first.black.name) == (second.black.name, second.white.name)
    # each pair has its own opening, taken from the book in order
    fens = [pair[0].opening_fen for pair in by_pair.values()]
    assert fens == [o.fen for o in exp.book[:6]]


def test_ids_are_positions_and_stable_when_rounds_are_added():
    short = build_schedule(experiment(rounds=2))
    longer = build_schedule(experiment(rounds=4))
    assert [t.game_id for t in short] == [t.game_id for t in longer[: len(short)]]
    assert short[0].game_id == "r0001-e01-g0" and short[-1].game_id == "r0002-e02-g1"
    assert [t.opening_fen for t in short] == [t.opening_fen for t in longer[: len(short)]]


def test_total_games_cuts_the_schedule_in_order():
    tasks = build_schedule(experiment(games=6))
    assert [t.game_id for t in tasks] == [
        "r0001-e01-g0", "r0001-e01-g1", "r0001-e02-g0", "r0001-e02-g1",
        "r0002-e01-g0", "r0002-e01-g1",
    ]


def test_round_robin_plays_every_pair_with_both_colours():
    exp = experiment(names=("a", "b", "c", "d"), schedule="round-robin", challengers=(),
                     rounds=1)
    tasks = build_schedule(exp)
    assert len(tasks) == 6 * 2
    colours = Counter((t.white.name, t.black.name) for t in tasks)
    assert all(colours[(w, b)] == 1 for w in "abcd" for b in "abcd" if w != b)


def test_unpaired_games_alternate_colours_by_round():
    tasks = build_schedule(experiment(names=("a", "b"), rounds=4, paired=False))
    assert [t.white.name for t in tasks] == ["a", "b", "a", "b"]
    assert all(t.pair_id is None for t in tasks)
    assert len({t.opening_fen for t in tasks}) == 4


def test_random_order_is_seeded():
    one = build_schedule(experiment(rounds=5, order="random", seed=1))
    again = build_schedule(experiment(rounds=5, order="random", seed=1))
    other = build_schedule(experiment(rounds=5, order="random", seed=2))
    assert [t.opening_fen for t in one] == [t.opening_fen for t in again]
    assert [t.opening_fen for t in one] != [t.opening_fen for t in other]


def test_no_book_starts_from_the_initial_position():
    tasks = build_schedule(experiment(rounds=1, book=False))
    assert {t.opening_fen for t in tasks} == {chess.STARTING_FEN}


def test_book_wraps_around_when_exhausted():
    exp = experiment(names=("a", "b"), rounds=401)
    tasks = build_schedule(exp)
    assert tasks[-1].opening_fen == exp.book[0].fen
