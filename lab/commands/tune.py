"""`tempo tune RESULTS... --out weights.json`: Texel-tune our engine's evaluation weights.

Positions are sampled from the games of the results folders (`lab.tune.positions`), their
evaluations taken apart into weights by the engine process (`lab.tune.features`), K and then the
weights fitted (`lab.tune.fit`), and the result written as a weights file that the engine loads
with `setoption name EvalFile value weights.json` (`lab.tune.weights_file`).
"""

from __future__ import annotations

import argparse
import sys

from lab.commands.gauntlet import whole_number


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
    parser.add_argument("--ridge", type=float, default=0.0,
                        help="penalty per squared centipawn of change (default 0)")
    parser.add_argument("--k", type=float, help="the sigmoid scale (default: fitted)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from lab.experiment import BUILTIN_ENGINES
    from lab.store import StoreError
    from lab.tune.features import FeaturesError, engine_features
    from lab.tune.fit import fit_weights
    from lab.tune.positions import sample_positions
    from lab.tune.weights_file import write_weights_file

    try:
        samples = sample_positions(args.results, args.skip, args.per_game, args.seed)
        if not samples:
            raise ValueError("no finished games with positions past --skip in "
                             + ", ".join(args.results))
        features = engine_features(samples, BUILTIN_ENGINES["tempo"], args.start)
        fit = fit_weights(features, args.k, args.min_positions, args.ridge)
        record = {
            "results": [str(folder) for folder in args.results], "skip": args.skip,
            "per_game": args.per_game, "seed": args.seed, "start": args.start,
            "min_positions": args.min_positions, "ridge": args.ridge,
            "positions": len(samples), "quiet": len(features.results), "k": fit.k,
            "error_before": fit.error_before, "error_after": fit.error_after,
            "tuned": len(fit.tuned), "iterations": fit.iterations,
        }
        write_weights_file(args.out, features.keys, fit.weights, record)
    except (ValueError, OSError, StoreError, FeaturesError) as exc:
        print(f"tempo tune: {exc}", file=sys.stderr)
        return 1
    print(f"positions {len(samples)} sampled, {len(features.results)} quiet; K = {fit.k:.4f}")
    print(f"mean squared error {fit.error_before:.6f} -> {fit.error_after:.6f} "
          f"({len(fit.tuned)} weight halves tuned, {fit.iterations} iterations: {fit.message})")
    print(f"weights written to {args.out}")
    return 0
