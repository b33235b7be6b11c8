"""The schedule: every game of an experiment, in play order, with an id fixed by its position.

Rounds → encounters (player pairs) → games, as fastchess's scheduler walks them (reference
§2.5): one opening per (round, encounter); with paired openings the encounter is two games with
the same opening and colours reversed, sharing a `pair_id`. A game's id is its position
(`r0003-e02-g1`: round 3, encounter 2, second game), so the same experiment always gives the same
ids, a resumed run skips exactly the finished ones, and adding rounds keeps the old ids.
"""

from __future__ import annotations

import itertools
import math
import os

import chess

from lab.engine_log import EngineLogs
from lab.experiment import Experiment
from lab.openings import Opening
from lab.records import GameTask

START = Opening(chess.STARTING_FEN)


def encounters(exp: Experiment) -> list[tuple[str, str]]:
    """Player pairs of one round: each challenger against each other engine, or all pairs."""
    names = [spec.name for spec in exp.engines]
    if exp.schedule == "round-robin":
        return list(itertools.combinations(names, 2))
    rest = [name for name in names if name not in exp.challengers]
    return [(challenger, opponent) for challenger in exp.challengers for opponent in rest]


def games_per_round(exp: Experiment) -> int:
    """Games in one round: encounters × (2 when openings are paired, else 1)."""
    return len(encounters(exp)) * (2 if exp.openings.paired else 1)


def total_games(exp: Experiment) -> int:
    """The number of scheduled games: `games` if given, else rounds × games per round."""
    if exp.games is not None:
        return exp.games
    return (exp.rounds or 1) * games_per_round(exp)


def engine_logs(exp: Experiment) -> EngineLogs:
    """Where the experiment's engines keep their traffic (`[log] dir`) and their stderr
    (`<out>/stderr` unless `[log] stderr = false`), as absolute paths for the workers."""
    log = exp.log
    return EngineLogs(
        io_dir=os.path.abspath(log.dir) if log.dir is not None else None,
        stderr_dir=os.path.abspath(exp.out / "stderr") if log.stderr else None,
        stderr_limit=log.stderr_kb * 1024)


def build_schedule(exp: Experiment) -> list[GameTask]:
    """Every game of the experiment in play order (pairs adjacent, so pairs finish early).

    Openings are used in book order (already shuffled by the book's seed when random), one per
    (round, encounter), wrapping around when the book runs out. Without paired openings the
    colours alternate from one round to the next so each player has both colours equally often.
    """
    pairs = encounters(exp)
    per_round = games_per_round(exp)
    total = total_games(exp)
    book = exp.book or [START]
    logs = engine_logs(exp)
    tasks: list[GameTask] = []
    for round_index in range(math.ceil(total / per_round)):
        for e, (first, second) in enumerate(pairs):
            opening = book[(round_index * len(pairs) + e) % len(book)]
            pair_id = f"r{round_index + 1:04d}-e{e + 1:02d}"
            if exp.openings.paired:
                colours = [(first, second), (second, first)]
            elif round_index % 2 == 0:
                colours = [(first, second)]
            else:
                colours = [(second, first)]
            for g, (white, black) in enumerate(colours):
                tasks.append(_task(exp, round_index + 1, pair_id, g, white, black, opening,
                                   logs))
    return tasks[:total]


def _task(exp: Experiment, round_number: int, pair_id: str, game: int, white: str, black: str,
          opening: Opening, logs: EngineLogs) -> GameTask:
    white_spec, black_spec = exp.engine(white), exp.engine(black)
    return GameTask(
        game_id=f"{pair_id}-g{game}",
        round=round_number,
        white=white_spec,
        black=black_spec,
        tc=exp.tc,
        opening_fen=opening.fen,
        opening_moves=list(opening.moves),
        adjudication=exp.adjudication,
        margin_ms=exp.margin_ms,
        pair_id=pair_id if exp.openings.paired else None,
        logs=logs,
        wait_ms=exp.wait_ms,
        variant=exp.variant,
    )
