"""lab.sprt_estimate: the bias-corrected Elo of a sequential test, against fishtest's numbers."""

from __future__ import annotations

import pytest

from lab.sprt_estimate import sequential_estimate
from lab.stats import elo_estimate

#: fishtest's `sprt.sprt(...).set_state(counts)` then `.analytics(0.05)` (official-stockfish/
#: fishtest, server/fishtest/stats/sprt.py at 07bf1052, brownian.py, LLRcalc.py), run on these
#: counts: Elo, 95 % interval, LOS. The first two are fishtest's own examples in stat_util.py.
FISHTEST = [
    ([39, 2226, 31451, 2412, 40], 0.2, 0.9, "logistic", 0.865183, 0.168321, 1.540669, 0.992002),
    ([39, 2226, 31451, 2412, 40], 0.764, 3.439, "normalized",
     0.865160, 0.168286, 1.540652, 0.992000),
    ([10789, 19328, 33806, 19402, 10543], -3, 1, "logistic",
     -0.992537, -3.488492, 1.488586, 0.188035),
    ([5, 20, 40, 30, 10], 0, 10, "logistic", 33.189694, 0.085242, 69.221096, 0.975293),
    ([2, 30, 101, 41, 5], 0, 5, "normalized", 16.510755, -2.148585, 35.955241, 0.958599),
    ([30, 60, 45], 0, 10, "logistic", 38.764005, -4.251351, 85.155941, 0.961329),
    ([0, 0, 10], 0, 5, "logistic", 1000.0, 943.953552, 1000.0, 1.0),
]


@pytest.mark.parametrize(("counts", "elo0", "elo1", "model", "elo", "lower", "upper", "los"),
                         FISHTEST)
def test_reproduces_fishtest(counts, elo0, elo1, model, elo, lower, upper, los) -> None:
    est = sequential_estimate(counts, elo0, elo1, model=model)
    assert est.elo == pytest.approx(elo, abs=1e-4)
    assert est.lower == pytest.approx(lower, abs=1e-4)
    assert est.upper == pytest.approx(upper, abs=1e-4)
    assert est.los == pytest.approx(los, abs=1e-5)


def test_a_test_stopped_on_a_lucky_run_is_shrunk_toward_the_bounds() -> None:
    """A pass at [0, 10] after 105 pairs: the plain estimate says +33.6, the sequential one less
    (the stop itself selected a lucky sample)."""
    counts = [5, 20, 40, 30, 10]
    plain = elo_estimate(counts)
    corrected = sequential_estimate(counts, 0, 10, model="logistic")
    assert corrected.elo < plain.elo
    assert corrected.lower < corrected.elo < corrected.upper


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="3 .* or 5"):
        sequential_estimate([1, 2, 3, 4], 0, 5)
    with pytest.raises(ValueError, match="confidence"):
        sequential_estimate([1, 2, 3], 0, 5, confidence=95)
    with pytest.raises(ValueError, match="unknown SPRT model"):
        sequential_estimate([1, 2, 3], 0, 5, model="bayes")
