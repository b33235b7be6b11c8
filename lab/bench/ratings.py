"""`tempo bench ratings`: how long rating fits take on synthetic pools of 10k, 100k and 1M games.

Each pool is drawn from Ordo's model (logistic expectancy, 40 % draws between equals, 20 points
for White) over a random schedule; the figures are the time to condense the games frame, to fit
each model (curvature error bars included), and to read and fit the same games from a PGN file.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from lab.ratings import fit_ratings
from lab.ratings.inputs import read_pgn_results
from lab.ratings.models import OrdoModel
from lab.ratings.pool import condense

RESULTS = np.array(["1-0", "1/2-1/2", "0-1"])


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("ratings")
    parser.add_argument("--sizes", default="10000,100000,1000000", metavar="N,N,...",
                        help="pool sizes in games (default 10000,100000,1000000)")
    parser.add_argument("--players", type=int, default=50, help="players per pool (default 50)")
    parser.add_argument("--pgn-max", type=int, default=100_000, metavar="N",
                        help="also time PGN reading for pools up to N games (default 100000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.set_defaults(func=run)


def synthetic_games(rng: np.random.Generator, games: int, players: int) -> pd.DataFrame:
    """`games` results among `players` with ratings ~ N(0, 150), drawn from Ordo's model."""
    names = np.array([f"engine-{i:03d}" for i in range(players)])
    truth = rng.normal(0.0, 150.0, players)
    white = rng.integers(0, players, games)
    black = (white + rng.integers(1, players, games)) % players
    probs = OrdoModel().probabilities(truth[white] - truth[black] + 20.0, 0.4)
    u = rng.random(games)
    outcome = (u > probs[:, 0]).astype(int) + (u > probs[:, 0] + probs[:, 1])
    return pd.DataFrame({"white": names[white], "black": names[black],
                         "result": RESULTS[outcome]})


def write_pgn(frame: pd.DataFrame, path: Path) -> None:
    """A PGN file of the frame's games: the seven-tag roster and a short movetext each."""
    with open(path, "w") as out:
        for k, (white, black, result) in enumerate(frame.itertuples(index=False)):
            out.write(
                f'[Event "bench"]\n[Site "?"]\n[Date "????.??.??"]\n[Round "{k + 1}"]\n'
                f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n\n'
                f"1. e4 {{+0.30/12 0.104s}} e5 {{-0.25/11 0.098s}} 2. Nf3 Nc6 {result}\n\n"
            )


def _timed(func) -> str:
    """Wall-clock and CPU seconds of `func()`, as "wall (cpu)": the machine may be shared."""
    wall, cpu = time.perf_counter(), time.process_time()
    func()
    return f"{time.perf_counter() - wall:.2f} ({time.process_time() - cpu:.2f})"


def run(args: argparse.Namespace) -> int:
    rng = np.random.default_rng(args.seed)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    print("seconds, wall-clock (CPU)")
    print(f"{'games':>9} {'condense':>13} {'ordo fit':>13} {'bayeselo fit':>13} "
          f"{'pgn read+fit':>13}")
    for size in sizes:
        frame = synthetic_games(rng, size, args.players)
        t_condense = _timed(lambda frame=frame: condense(frame))
        t_ordo = _timed(lambda frame=frame: fit_ratings(frame, white="auto"))
        t_bayes = _timed(lambda frame=frame: fit_ratings(frame, "bayeselo"))
        t_pgn = "-"
        if size <= args.pgn_max:
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "games.pgn"
                write_pgn(frame, path)
                t_pgn = _timed(lambda path=path: fit_ratings(read_pgn_results(path)))
        print(f"{size:>9} {t_condense:>13} {t_ordo:>13} {t_bayes:>13} {t_pgn:>13}", flush=True)
    return 0
