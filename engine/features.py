"""`python -m engine features`: the evaluation of each position as a linear function of its weights.

For each FEN (or EPD: the first four fields) read on standard input, one JSON line is written:
``{"fen", "eval", "quiet", "constant", "coefficients"}`` where, from White's point of view,
``eval == constant + sum(coefficients[k] * weight[k])`` over the current weights, each weight
half named ``<name>.mg`` / ``<name>.eg`` (`engine.eval_weights.names`). This is what a Texel
tuner fits (CPW, "Texel's Tuning Method"): the taper by game phase is in the coefficients
(phase/24 for middlegame halves, (24 - phase)/24 for endgame ones), endgame scaling multiplies
them, and the constant holds what no tunable weight owns: the piece-ratio term and the rounding
of each tapered term toward zero. `quiet` is false for positions a tuner should skip: in check,
the quiescence search disagreeing with the static evaluation, or a saturated evaluation. A
malformed line is answered with ``{"error": ...}`` and the batch goes on.

The first line written is a header ``{"weights": {name: [mg, eg]}}`` with the weights in use.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TextIO

import chess

from engine import eval_weights
from engine.eval_terms.linear import Linear
from engine.eval_terms.scaling import SCALE_NONE
from engine.eval_terms.weights import PHASE_MAX
from engine.evaluate import Evaluator, board_sides, game_phase
from engine.score import EVAL_LIMIT, INFINITE
from engine.search.alphabeta import AlphaBetaSearch
from engine.search.context import SearchContext
from engine.tt import TranspositionTable

_MATERIAL_NAMES = [f"material.{chess.piece_name(t)}" for t in range(chess.PAWN, chess.KING)]


@dataclass
class Features:
    """White's evaluation as constant + coefficients . weights (weight halves by name)."""

    constant: float
    coefficients: dict[str, float]

    def value(self, weights: dict[str, tuple[int, int]]) -> float:
        """The evaluation these features give with `weights` (name -> (mg, eg))."""
        total = self.constant
        for key, coefficient in self.coefficients.items():
            name, half = key.rsplit(".", 1)
            total += coefficient * weights[name][half == "eg"]
        return total


def linear_features(board: chess.Board, evaluator: Evaluator,
                    weights: dict[str, tuple[int, int]]) -> Features:
    """The features of `board` (call inside `eval_weights.unit_weights()`; `weights` are the
    numbers in use, `evaluator` built with them and full knowledge)."""
    white, black, counts_w, counts_b, wb, bb = board_sides(board)
    phase = game_phase(counts_w, counts_b)
    material = Linear({name: counts_w[i] - counts_b[i] for i, name in enumerate(_MATERIAL_NAMES)})
    terms = [material] + [Linear.of(white[i] - black[i]) for i in range(9)]

    coefficients: dict[str, float] = {}
    constant = float(evaluator.ratio_term(counts_w, counts_b))
    total = constant
    for term in terms:
        scaled = 0  # the term times PHASE_MAX, an integer as in the evaluation
        for name, count in term.coefficients.items():
            if not count:
                continue
            mg, eg = weights[name]
            scaled += count * (mg * phase + eg * (PHASE_MAX - phase))
            for half, share in ((".mg", phase), (".eg", PHASE_MAX - phase)):
                if share:
                    key = name + half
                    coefficients[key] = coefficients.get(key, 0.0) + count * share / PHASE_MAX
        exact = scaled / PHASE_MAX
        constant += int(exact) - exact
        total += int(exact)
    if total:
        raw = evaluator.scale(counts_w, counts_b, wb, bb, total > 0)
        if raw != SCALE_NONE:
            factor = raw / SCALE_NONE
            scaled_total = total * factor
            constant = constant * factor + int(scaled_total) - scaled_total
            coefficients = {key: c * factor for key, c in coefficients.items()}
    return Features(constant, coefficients)


def is_quiet(board: chess.Board, evaluator: Evaluator) -> bool:
    """Not in check, not saturated, and the quiescence search keeps the static evaluation."""
    if board.is_check():
        return False
    static = evaluator.evaluate(board)
    if abs(static) >= EVAL_LIMIT:
        return False
    ctx = SearchContext(board=board.copy(), evaluator=evaluator, tt=TranspositionTable(1),
                        send=lambda line: None)
    return AlphaBetaSearch(ctx).quiesce(-INFINITE, INFINITE, 0, False) == static


def _board(line: str) -> chess.Board:
    """A FEN, or an EPD's four position fields (its operations ignored)."""
    fields = line.split()
    if len(fields) < 4:
        raise ValueError(f"not a FEN or EPD: {line!r}")
    if len(fields) >= 6 and fields[4].isdigit() and fields[5].isdigit():
        return chess.Board(" ".join(fields[:6]))
    return chess.Board(" ".join(fields[:4]) + " 0 1")


def run_features(lines: Iterable[str], out: TextIO) -> int:
    """Write the header and one JSON line per input line (see the module docstring)."""
    weights = eval_weights.current()
    out.write(json.dumps({"weights": {k: list(v) for k, v in weights.items()}}) + "\n")
    evaluator = Evaluator(cache_size=0)
    records: list[dict[str, object]] = []
    boards: list[chess.Board | None] = []
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            board = _board(line)
            if not board.is_valid():
                raise ValueError(f"illegal position: {line!r}")
        except ValueError as error:
            records.append({"error": str(error)})
            boards.append(None)
            continue
        white_eval = evaluator.evaluate(board) * (1 if board.turn else -1)
        records.append({"fen": board.fen(), "eval": white_eval,
                        "quiet": is_quiet(board, evaluator)})
        boards.append(board)
    with eval_weights.unit_weights():
        for record, board in zip(records, boards):
            if board is not None:
                features = linear_features(board, evaluator, weights)
                record.update(constant=features.constant, coefficients=features.coefficients)
    for record in records:
        out.write(json.dumps(record) + "\n")
    out.flush()
    return 0


def main(argv: list[str]) -> int:
    """`features [--eval-file FILE]`: FENs on standard input, JSON lines on standard output."""
    parser = argparse.ArgumentParser(prog="tempo-engine features",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--eval-file", help="a weights file to use instead of the built-in weights")
    options = parser.parse_args(argv)
    if options.eval_file:
        try:
            eval_weights.install(eval_weights.read_weights_file(options.eval_file))
        except eval_weights.WeightsError as error:
            print(f"tempo-engine features: {error}", file=sys.stderr)
            return 2
    return run_features(sys.stdin, sys.stdout)
