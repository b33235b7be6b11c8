"""Elo calibration: measure what each level plays like against anchors, correct the table.

`config` (the calibration file), `anchors` (who plays whom), `run` (stages through the harness,
the fit, rounds), `correct` (the monotone correction), `criteria` (reference §5 pass/fail),
`tables` (EloTable and level-map CSV), `probe` (our engine's parameters, table loading),
`plot` and `report`.
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
