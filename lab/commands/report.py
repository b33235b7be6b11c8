"""`tempo report RESULTS...`: (re)write the HTML page `report.html` of results folders.

Works on any results folder, an older run's or one still playing (the store is only read; a run
holding the folder's lock makes the page say it is running, with its ETA). A
calibration's own page is written by `tempo calibrate`, which resumes without replaying a game;
each of its stage folders is a results folder with its own page.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report", description="Write report.html, one self-contained page (standings, SPRT, "
        "time usage, every game) into each results folder named, from its tempo.sqlite.")
    parser.add_argument("results", nargs="+", type=Path, metavar="RESULTS",
                        help="a results folder (with tempo.sqlite)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """0: every page written; 1: a folder that is not a results folder or could not be written."""
    from lab.page.write import run_in_progress, write_run_page
    from lab.store import DB_NAME, StoreError

    status = 0
    for folder in args.results:
        if not (folder / DB_NAME).is_file() and _calibration_folder(folder):
            print(f"tempo report: {folder}: a calibration folder; `tempo calibrate FILE` writes "
                  "its page (it resumes without replaying games)", file=sys.stderr)
            status = 1
            continue
        try:
            print(write_run_page(folder, running=run_in_progress(folder)))
        except StoreError as exc:
            print(f"tempo report: {exc}", file=sys.stderr)
            status = 1
        except (ValueError, OSError) as exc:
            print(f"tempo report: {folder}: {exc}", file=sys.stderr)
            status = 1
    return status


def _calibration_folder(folder: Path) -> bool:
    """True for a calibration's folder (its report, no store of its own). The calibration
    package (scipy) is imported only for a folder without a store."""
    from lab.calibration.report import REPORT_NAME

    return (folder / REPORT_NAME).is_file()
