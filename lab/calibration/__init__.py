"""Elo calibration: measure what each level plays like against anchors, correct the table.

`config` (the calibration file), `anchors` (who plays whom), `measure` (one round's stages
through the harness and their fit), `run` (rounds: measure, judge, correct), `outcome` (what the
rounds measured), `correct` (the monotone correction), `criteria` (docs/reference/elo_limit.md §5
pass/fail), `tables` (EloTable and level-map CSV, the round and final tables), `probe` (our
engine's parameters, table loading), `plot`, `report` and `page` (rendering only, the page with
`lab.page`'s blocks).
"""

from lab.calibration.config import Calibration, CalibrationError, load_calibration
from lab.calibration.correct import Correction, correct_table
from lab.calibration.criteria import Thresholds, Verdict, judge
from lab.calibration.run import CalibrationOutcome, run_calibration

__all__ = [
    "Calibration",
    "CalibrationError",
    "CalibrationOutcome",
    "Correction",
    "Thresholds",
    "Verdict",
    "correct_table",
    "judge",
    "load_calibration",
    "run_calibration",
]
