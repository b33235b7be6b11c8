"""`tempo calibrate CALIBRATION.toml`: measure levels against anchors, write a corrected table."""

from __future__ import annotations

import argparse
import shlex
import sys

from lab.interrupt import INTERRUPTED_MESSAGE, interrupted_exit_code


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "calibrate",
        description="Play each level of a calibration file against anchors (and adjacent "
        "levels), fit all results with the anchors fixed, judge them against the acceptance "
        "criteria and write a corrected table (EloTable CSV for our engine), report.md and "
        "calibration.png into the results folder. Running it again resumes.")
    parser.add_argument("calibration", help="the calibration TOML file")
    parser.add_argument("--out", help="results folder (default: the file's, else results/NAME)")
    parser.add_argument("--rounds", type=int, help="budget of measure-and-correct rounds")
    parser.add_argument("--concurrency", type=int,
                        help="games at once (replaces the file's; a resumed stage keeps its games)")
    parser.add_argument("--anchors-only", action="store_true",
                        help="play (or resume) only the anchor round robin, which involves no "
                        "level of our engine, print the anchor table and write anchors.csv; "
                        "the full command later resumes from it (so the anchors can be rated "
                        "while the engine is still changing)")
    parser.add_argument("--full-strength", action="store_true",
                        help="play (or resume) the anchor round robin and the [full_strength] "
                        "stage, print both tables and write anchors.csv: full strength's rating "
                        "on the anchors' scale, the range's top, before any level is played")
    parser.add_argument("--report", action="store_true",
                        help="play no game: fit the games the stages hold so far and write an "
                        "interim report (report.md, calibration.png, levels.csv, anchors.csv) "
                        "into the results folder's interim/; the stores are only read, so it "
                        "can run beside the calibration itself")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """0: the final table passed (with --anchors-only or --full-strength: those stages are
    rated; with --report: the interim report is written); 1: it did not (or a stage failed);
    2: invalid input."""
    from lab.calibration import CalibrationError, load_calibration, run_calibration
    from lab.calibration.anchor_round_robin import anchor_lines, rate_anchors
    from lab.calibration.config import ReportOnly
    from lab.calibration.full_strength import full_strength_lines, rate_full_strength
    from lab.calibration.report import write_anchor_table
    from lab.experiment import ExperimentError
    from lab.store import StoreError

    try:
        cal = load_calibration(args.calibration, out=args.out)
        if args.rounds is not None:
            if args.rounds < 1:
                raise CalibrationError("--rounds must be at least 1")
            cal.rounds = args.rounds
        if args.concurrency is not None:
            if args.concurrency < 1:
                raise CalibrationError("--concurrency must be at least 1")
            cal.concurrency = args.concurrency
        if args.anchors_only + args.full_strength + args.report > 1:
            raise CalibrationError("give one of --anchors-only, --full-strength and --report")
        if args.report:
            cal.report_only = ReportOnly()
        if args.anchors_only and not cal.anchor_games:
            raise CalibrationError(f"{cal.source}: --anchors-only needs an "
                                   "[anchor_round_robin] with games")
        if args.full_strength and not cal.full_games:
            raise CalibrationError(f"{cal.source}: --full-strength needs a [full_strength] "
                                   "with games")
        if args.anchors_only or args.full_strength:
            rated, table = rate_anchors(cal)
            print("\n".join(anchor_lines(table)))
            if args.full_strength:
                print("\n".join(full_strength_lines(rated, rate_full_strength(rated))))
            print(write_anchor_table(rated, table))
            return 0
        command = "tempo calibrate " + shlex.join(sys.argv[2:] if len(sys.argv) > 2
                                                 else [args.calibration])
        outcome = run_calibration(cal, command=command)
    except (CalibrationError, ExperimentError, StoreError) as exc:
        print(f"tempo: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        print(INTERRUPTED_MESSAGE, file=sys.stderr)
        return interrupted_exit_code(exc)
    for path in outcome.files:
        print(path)
    report = next(p for p in outcome.files if p.name == "report.md")
    if args.report:
        print(f"interim report (no game played): see {report}")
        return 0
    print(f"calibration {'PASSED' if outcome.passed else 'did not pass'}: see {report}")
    return 0 if outcome.passed else 1
