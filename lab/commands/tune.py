"""`tempo tune RESULTS... --out weights.json`: Texel-tune our engine's evaluation weights.

Positions are sampled from the games of the results folders (`lab.tune.positions`), their
evaluations taken apart into weights by the engine process (`lab.tune.features`), K and then the
weights fitted (`lab.tune.fit`), and the result written as a weights file that the engine loads
with `setoption name EvalFile value weights.json` (`lab.tune.weights_file`).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from lab.commands.gauntlet import whole_number

if TYPE_CHECKING:
    import numpy as np


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tune", description="Texel-tune the engine's evaluation weights on the games of results "
        "folders (logistic fit of quiet evaluations to game results) and write a weights file "
        "for the engine's EvalFile option.")
    parser.add_argument("results", nargs="+", metavar="RESULTS",
                        help="a results folder (with tempo.sqlite)")
    parser.add_argument("--out", required=True, help="the weights file to write (JSON)")
    parser.add_argument("--skip", type=whole_number(0), default=8, metavar="PLIES",
                        help="engine plies left out at the start of each game (default 8)")
    parser.add_argument("--per-game", type=whole_number(1), default=10, metavar="K",
                        help="positions sampled per game (default 10)")
    parser.add_argument("--seed", type=int, default=1, help="sampling seed (default 1)")
    parser.add_argument("--start", metavar="FILE",
                        help="a weights file to start from (default: the built-in weights)")
    parser.add_argument("--min-positions", type=whole_number(1), default=20, metavar="N",
                        help="tune only weights used by N positions or more (default 20)")
    parser.add_argument("--ridge", type=float, nargs="+", default=[0.0], metavar="R",
                        help="penalty per squared centipawn of change (default 0); several "
                        "values: each is fitted and the one with the least error on the "
                        "held-out games is kept")
    parser.add_argument("--k", type=float, help="the sigmoid scale (default: fitted)")
    parser.add_argument("--only", nargs="+", default=[], metavar="PATTERN",
                        help="tune only the weights whose names match these shell patterns "
                        "('material.*', 'passed_*'); the others keep their values")
    parser.add_argument("--holdout", type=fraction, default=0.2, metavar="F",
                        help="fraction of the games held out of the fit, to report the error "
                        "on games it has not seen (default 0.2; 0: none)")
    parser.set_defaults(func=run)


def fraction(text: str) -> float:
    """A --holdout value: a number in [0, 0.9]."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 0.9:
        raise argparse.ArgumentTypeError(f"must be a fraction in [0, 0.9], got {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    from lab.experiment import BUILTIN_ENGINES
    from lab.store import StoreError
    from lab.tune.features import FeaturesError, engine_features
    from lab.tune.fit import (
        fit_scale,
        fit_weights,
        holdout_mask,
        largest_changes,
        mean_squared_error,
    )
    from lab.tune.positions import sample_positions
    from lab.tune.weights_file import write_weights_file

    try:
        samples = sample_positions(args.results, args.skip, args.per_game, args.seed)
        if not samples:
            raise ValueError("no finished games with positions past --skip in "
                             + ", ".join(args.results))
        features = engine_features(samples, BUILTIN_ENGINES["tempo"], args.start)
        held = holdout_mask(features.game_ids, args.holdout, args.seed)
        training, validation = features.rows(~held), features.rows(held)
        if len(args.ridge) > 1 and not len(validation.results):
            raise ValueError("several --ridge values are chosen between on held-out games: "
                             "give --holdout above 0")

        def held_out_error(weights: np.ndarray, k: float) -> float:
            return mean_squared_error(validation.values(weights), validation.results, k)

        k = args.k if args.k is not None else fit_scale(training.values(training.weights),
                                                         training.results)
        fits = [fit_weights(training, k, args.min_positions, ridge, args.only)
                for ridge in args.ridge]
        scores = [held_out_error(f.weights, f.k) if len(validation.results) else 0.0
                  for f in fits]
        best = min(range(len(fits)), key=scores.__getitem__)
        fit, ridge = fits[best], args.ridge[best]
        check = (held_out_error(validation.weights, fit.k), scores[best]) \
            if len(validation.results) else None
        held_games = len(set(validation.game_ids))
        record = {
            "results": [str(folder) for folder in args.results], "skip": args.skip,
            "per_game": args.per_game, "seed": args.seed, "start": args.start,
            "min_positions": args.min_positions, "only": args.only, "ridge": ridge,
            "ridges": dict(zip(map(str, args.ridge), scores)) if len(fits) > 1 else None,
            "positions": len(samples), "quiet": len(features.results), "k": fit.k,
            "error_before": fit.error_before, "error_after": fit.error_after,
            "tuned": len(fit.tuned), "iterations": fit.iterations,
            "holdout": args.holdout, "held_out_positions": len(validation.results),
            "held_out_games": held_games,
            "held_out_error_before": check[0] if check else None,
            "held_out_error_after": check[1] if check else None,
        }
        write_weights_file(args.out, features.keys, fit.weights, record)
    except (ValueError, OSError, StoreError, FeaturesError) as exc:
        print(f"tempo tune: {exc}", file=sys.stderr)
        return 1
    print(f"positions {len(samples)} sampled, {len(features.results)} quiet, "
          f"{len(training.results)} fitted; K = {fit.k:.4f}")
    if len(fits) > 1:
        for value, candidate, score in zip(args.ridge, fits, scores):
            print(f"ridge {value:g}: mean squared error {candidate.error_after:.6f} fitted, "
                  f"{score:.6f} held out" + ("  (kept)" if value == ridge else ""))
    print(f"mean squared error {fit.error_before:.6f} -> {fit.error_after:.6f} "
          f"({len(fit.tuned)} weight halves tuned, {fit.iterations} iterations: {fit.message})")
    if check:
        print(f"held out: {len(validation.results)} quiet positions of "
              f"{held_games} games, mean squared error {check[0]:.6f} -> "
              f"{check[1]:.6f}")
        if check[1] > check[0]:
            print("the fit does not carry over to the held-out games: it learnt the games it "
                  "was given; use more games, a larger --ridge or a larger --min-positions")
    changes = largest_changes(features.keys, features.weights, fit.weights)
    if changes:
        print("largest changes: " + ", ".join(f"{key} {a:+.0f} -> {b:+.0f}"
                                              for key, a, b in changes))
    print(f"weights written to {args.out}")
    return 0
