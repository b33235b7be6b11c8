"""Time controls scaled by a worker's factor (fishtest/OpenBench practice, pure arithmetic)."""

from __future__ import annotations

import pytest

from lab.backends.scaling import FactorError, read_factor, scale_task
from lab.records import EngineSpec, GameTask
from timecontrol.control import parse_time_control


def test_fishtest_factor_example() -> None:
    """fishtest: factor = 628000 / measured nps; a machine at 314000 nps plays 10+0.1 as 20+0.2."""
    factor = 628000 / 314000
    assert str(parse_time_control("10+0.1").scaled(factor)) == "20+0.2"


def test_read_factor() -> None:
    assert read_factor({}) == 1.0
    assert read_factor({"TEMPO_TC_FACTOR": " "}) == 1.0
    assert read_factor({"TEMPO_TC_FACTOR": "1.25"}) == 1.25
    for bad in ("fast", "0", "-1", "nan", "inf"):
        with pytest.raises(FactorError, match=f"TEMPO_TC_FACTOR='{bad}' is not a positive"):
            read_factor({"TEMPO_TC_FACTOR": bad})


def test_scale_task_scales_the_game_and_each_engine_override() -> None:
    task = GameTask("g1", 1, EngineSpec("a", ["a"], tc=parse_time_control("5+0.05")),
                    EngineSpec("b", ["b"]), tc=parse_time_control("10+0.1"), opening_fen="startpos")
    scaled = scale_task(task, 2.0)
    assert (str(scaled.tc), str(scaled.white.tc), scaled.black.tc) == ("20+0.2", "10+0.1", None)
    assert (str(task.tc), str(task.white.tc)) == ("10+0.1", "5+0.05")
    assert scale_task(task, 1.0) is task


def test_a_bad_factor_refuses_the_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker plugin reads TEMPO_TC_FACTOR at setup; a bad one is a probe problem naming it."""
    pytest.importorskip("distributed")
    from types import SimpleNamespace

    from lab.backends.worker import EngineHost, WorkerReport, refusal

    worker = SimpleNamespace(address="tcp://10.0.0.7:4000", name="w7",
                             state=SimpleNamespace(nthreads=2))
    monkeypatch.setenv("TEMPO_TC_FACTOR", "fast")
    host = EngineHost()
    host.setup(worker)
    problems = host.problems([])
    assert problems == {"TEMPO_TC_FACTOR": "TEMPO_TC_FACTOR='fast' is not a positive number"}
    line = refusal(WorkerReport(host.identity, problems))
    assert line.startswith("  worker tcp://10.0.0.7:4000 (host ") and "'fast'" in line
    monkeypatch.setenv("TEMPO_TC_FACTOR", "1.5")
    host.setup(worker)
    assert host.problems([]) == {} and host.identity["tc_factor"] == 1.5
