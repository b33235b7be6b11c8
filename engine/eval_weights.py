"""The evaluation's tunable weights by name: read them, replace them (a weights file), or stand in
unit linear forms for them (the `features` command).

Every weight is a (middlegame, endgame) pair in centipawns: the material values of
`engine.evaluate` and the packed weights of `engine.eval_terms.weights` (piece-square tables with
left-right mirrored squares sharing one name, mobility tables, passed-pawn tables, the king-attack
table and the scalar terms). Not tunable here: the piece-ratio term and endgame scaling (they
depend on material in a non-linear way), the king-attack units and the phase weights.

Weights are process-wide (the evaluation reads module tables, so its hot path stays as fast as
it was): :func:`install` changes them for every evaluator built afterwards, and clears the pawn
cache, whose entries hold scores. The strength limiter's levels
(`engine.strength.params.base_material`) read the material values when their parameters are
computed, so `EvalFile` rebuilds them too. Exchange arithmetic (`engine.ordering.VALUE`: SEE,
capture order and the capture search's pruning) copies the built-in material values at import
and keeps them: an `EvalFile` changes what positions are worth, not how captures are ordered.

A weights file is JSON, ``{"weights": {"material.pawn": [100, 125], "isolated": [-10, -15],
...}}``: each name (see :func:`names`) maps to ``[middlegame, endgame]`` integers; names left out
keep their built-in values. `tempo tune` writes such files.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import chess

from engine import evaluate as evaluation
from engine.eval_terms import pawns
from engine.eval_terms import weights as W
from engine.eval_terms.linear import Linear
from engine.eval_terms.weights import HALF, S

Pair = tuple[int, int]
WEIGHT_LIMIT = 5000
"""Largest magnitude of a weight half read from a file (keeps sums inside the packed halves)."""

_MATERIAL = {f"material.{chess.piece_name(t)}": t for t in range(chess.PAWN, chess.KING)}
_SCALARS = (
    "PASSED_KING_THEM", "PASSED_KING_US", "ISOLATED", "DOUBLED", "DOUBLED_ISOLATED", "BACKWARD",
    "BACKWARD_HALF_OPEN", "BACKWARD_MAJORS", "SHIELD_NEAR_PAWN", "SHIELD_FAR_PAWN",
    "KING_OPEN_FILE", "KING_RANK", "PAWN_THREAT", "MINOR_THREAT", "BISHOP_PAIR", "KNIGHT_OUTPOST",
    "BISHOP_OUTPOST", "ROOK_OPEN_FILE", "ROOK_HALF_OPEN_FILE", "ROOK_SEVENTH", "QUEEN_SEVENTH",
    "CENTER_PAWNS", "CENTER_SQUARE", "CENTER_PAWN_ATTACK",
)


class WeightsError(ValueError):
    """A weights file that cannot be used; the message names the file and the key."""


def _table_slots() -> dict[str, list[tuple[list[Any], int]]]:
    """Weight name -> the table entries holding it (two for a mirrored square)."""
    slots: dict[str, list[tuple[list[Any], int]]] = {}
    for piece, table in W.PST.items():
        for square in chess.SQUARES:
            rank = chess.square_rank(square)
            if chess.square_file(square) > 3 or (piece == chess.PAWN and rank in (0, 7)):
                continue
            name = f"pst.{chess.piece_name(piece)}.{chess.square_name(square)}"
            slots[name] = [(table, square), (table, square ^ 7)]
    for piece, table in W.MOBILITY.items():
        for count in range(len(table)):
            slots[f"mobility.{chess.piece_name(piece)}.{count}"] = [(table, count)]
    for rank in range(1, 7):
        slots[f"passed_rank.{rank}"] = [(W.PASSED_RANK, rank)]
        slots[f"passed_blocked.{rank}"] = [(W.PASSED_BLOCKED, rank)]
    for units in range(4, len(W.KING_ATTACK)):  # two attackers bring at least 4 units
        slots[f"king_attack.{units}"] = [(W.KING_ATTACK, units)]
    return slots


_SLOTS = _table_slots()


def names() -> list[str]:
    """Every tunable weight, material first, in a fixed order."""
    return [*_MATERIAL, *_SLOTS, *(attr.lower() for attr in _SCALARS)]


def _unpack(packed: int) -> Pair:
    eg = (packed + HALF) >> 16
    return packed - (eg << 16), eg


def current() -> dict[str, Pair]:
    """The weights in use now, name -> (middlegame, endgame)."""
    values = {
        name: (evaluation.PIECE_VALUES[t], evaluation.ENDGAME_PIECE_VALUES[t])
        for name, t in _MATERIAL.items()
    }
    for name, slots in _SLOTS.items():
        table, index = slots[0]
        values[name] = _unpack(table[index])
    for attr in _SCALARS:
        values[attr.lower()] = _unpack(getattr(W, attr))
    return values


def _store(name: str, value: object) -> None:
    """Put a packed value (or a linear form) in every place weight `name` lives."""
    if name in _SLOTS:
        for table, index in _SLOTS[name]:
            table[index] = value
    else:
        setattr(W, name.upper(), value)


def install(values: Mapping[str, Pair]) -> None:
    """Use `values` (name -> (middlegame, endgame), any subset of :func:`names`) from now on."""
    for name, (mg, eg) in values.items():
        if name in _MATERIAL:
            evaluation.PIECE_VALUES[_MATERIAL[name]] = mg
            evaluation.ENDGAME_PIECE_VALUES[_MATERIAL[name]] = eg
        else:
            _store(name, S(mg, eg))
    pawns.clear_cache()
    evaluation.reset_default()


DEFAULTS = current()
"""The built-in weights (as committed), restored by an empty `EvalFile`."""


@contextmanager
def unit_weights() -> Iterator[None]:
    """Within the block every non-material weight is the linear form of its own name, so the
    evaluation's side terms come out as coefficients; the numbers come back afterwards."""
    saved = current()
    for name in _SLOTS:
        _store(name, Linear({name: 1}))
    for attr in _SCALARS:
        _store(attr.lower(), Linear({attr.lower(): 1}))
    pawns.clear_cache()
    try:
        yield
    finally:
        install(saved)


def read_weights_file(path: str | Path) -> dict[str, Pair]:
    """The full weight set a weights file gives (built-in values for names it leaves out)."""
    where = str(path)
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise WeightsError(f"{where}: cannot read weights: {error}") from None
    table = data.get("weights") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        raise WeightsError(f"{where}: needs an object 'weights' mapping names to [mg, eg]")
    values = dict(DEFAULTS)
    for name, pair in table.items():
        if name not in values:
            raise WeightsError(f"{where}: unknown weight {name!r}")
        if (not isinstance(pair, list) or len(pair) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in pair)):
            raise WeightsError(f"{where}: weight {name!r} needs [mg, eg] integers, got {pair!r}")
        if not all(abs(v) <= WEIGHT_LIMIT for v in pair):
            raise WeightsError(f"{where}: weight {name!r} {pair} is beyond +-{WEIGHT_LIMIT}")
        if name in _MATERIAL and min(pair) <= 0:
            raise WeightsError(f"{where}: material {name!r} must be positive, got {pair}")
        values[name] = (pair[0], pair[1])
    return values
