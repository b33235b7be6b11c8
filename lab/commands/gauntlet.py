"""`tempo gauntlet EXPERIMENT.toml`: play (or resume) an experiment into its results folder."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from lab.backends.settings import (
    BackendError,
    add_backend_arguments,
    settings_from_args,
)
from lab.experiment import ExperimentError, Overrides
from lab.experiment_file import load_experiment
from lab.interrupt import INTERRUPTED_MESSAGE, interrupted_exit_code
from lab.store import StoreError
from lab.variants import Variant


def whole_number(minimum: int, unit: str = "") -> Callable[[str], int]:
    """An argparse type: a whole number (of `unit`, named in the error) of at least `minimum`."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number{unit}: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(
                f"must be at least {minimum}, got {value}" if minimum
                else f"must not be negative, got {value}")
        return value

    return parse


#: A count given on the command line (games, rounds, concurrency): at least 1.
positive_int = whole_number(1)
#: A time margin or wait given on the command line: whole milliseconds, 0 or more.
milliseconds = whole_number(0, " of ms")


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """The knobs shared by `tempo gauntlet` and `tempo match`."""
    parser.add_argument("--margin", type=milliseconds, metavar="MS",
                        help="ms a move may overrun the clock before it loses on time, for every "
                        "engine (replaces margin_ms; default 0, or the st= default of "
                        "docs/experiments.md)")
    parser.add_argument("--concurrency", type=positive_int, help="games at once (default: the "
                        "file's, else the number of cores)")
    parser.add_argument("--out", help="results folder (default: the file's, else results/NAME)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace a different experiment already in the results folder")
    parser.add_argument("--log", metavar="DIR", help="log every line to and from each engine, "
                        "with timestamps, one file per engine process (replaces [log] dir)")
    parser.add_argument("--engines", dest="engines_file", metavar="FILE",
                        help="engine definitions by name, in TOML (replaces engines_file; "
                        "see docs/experiments.md)")
    parser.add_argument("--each", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting for every engine, over the file's: tc=st=0.1, "
                        "options.Hash=16, protocol=uci ... (repeatable; cutechess -each)")
    parser.add_argument("--wait", type=milliseconds, metavar="MS",
                        help="ms each worker rests between games (cutechess -wait; wait_ms)")
    parser.add_argument("--pgn-out", nargs="+", metavar=("FILE", "min|fi"),
                        help="also append each game to FILE: 'min' for tags and moves only, "
                        "'fi' to end with the final FEN (cutechess -pgnout)")
    parser.add_argument("--epd-out", metavar="FILE",
                        help="append each game's final position to FILE (cutechess -epdout)")
    parser.add_argument("--variant", choices=[variant.value for variant in Variant],
                        help="standard chess, Chess960 or double Fischer random (replaces "
                        "variant; without a book, 960 start positions drawn by the book's seed)")
    parser.add_argument("--plain", action="store_true",
                        help="one line per game, even on a terminal")
    add_backend_arguments(parser)


def run_overrides(args: argparse.Namespace, **values: object) -> Overrides:
    """The run options of `add_run_options` (and `values`) as overrides of the experiment."""
    return Overrides(concurrency=args.concurrency, out=args.out, log=args.log,
                     margin_ms=args.margin, engines_file=args.engines_file, each=args.each,
                     wait_ms=args.wait, pgn_out=args.pgn_out, epd_out=args.epd_out,
                     variant=args.variant, **values)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "gauntlet", description="Run the games of an experiment TOML file into its results folder "
        "(tempo.sqlite, games.pgn, moves.csv, ratings.csv, time_usage.png, report.html: a page "
        "kept current while it plays). Running it again "
        "into the same folder resumes it.")
    parser.add_argument("experiment", help="the experiment TOML file")
    parser.add_argument("--games", type=positive_int,
                        help="total games (replaces rounds/games)")
    parser.add_argument("--rounds", type=positive_int, help="rounds (replaces rounds/games)")
    parser.add_argument("--tc", help="time control for every engine, e.g. 10+0.1")
    add_run_options(parser)
    parser.set_defaults(func=run)


def execute(load, args: argparse.Namespace) -> int:
    """Load (checking everything), run, print the ratings; the exit status.

    2: the experiment is invalid or the folder holds another one (nothing written);
    1: stopped because an engine or worker kept failing; 0: done or stopped by the SPRT.
    """
    from lab.runner import choose_backend, run_experiment

    try:
        experiment = load()
        backend = choose_backend(settings_from_args(args, experiment.backend))
        outcome = run_experiment(experiment, overwrite=args.overwrite,
                                 live=False if args.plain else None, backend=backend)
    except (ExperimentError, StoreError, BackendError) as exc:
        print(f"tempo: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        print(INTERRUPTED_MESSAGE, file=sys.stderr)
        return interrupted_exit_code(exc)
    if outcome.report.ratings:
        print(outcome.report.ratings)
    for note in outcome.report.notes:
        print(f"tempo: {note}", file=sys.stderr)
    print(f"results: {experiment.out}")
    return outcome.exit_code


def run(args: argparse.Namespace) -> int:
    overrides = run_overrides(args, games=args.games, rounds=args.rounds, tc=args.tc)
    return execute(lambda: load_experiment(args.experiment, overrides), args)
