"""`lab.busy_load`: busy processes that run for a `with` body and never outlive it."""

from __future__ import annotations

import os
import time

import pytest

from lab.busy_load import busy_load


def cpu_ticks(pid: int) -> int:
    """User + system clock ticks the process has used (/proc/<pid>/stat fields 14 and 15)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def test_busy_processes_spin_during_the_body_and_are_gone_after():
    with busy_load(2) as spinners:
        assert len(spinners) == 2 and all(s.poll() is None for s in spinners)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and min(cpu_ticks(s.pid) for s in spinners) < 5:
            time.sleep(0.05)
        assert min(cpu_ticks(s.pid) for s in spinners) >= 5  # they use the CPU, not sleep
    assert all(s.returncode is not None for s in spinners)


def test_an_interrupted_body_leaves_no_busy_process():
    with pytest.raises(KeyboardInterrupt), busy_load(1) as spinners:
        raise KeyboardInterrupt
    assert spinners[0].returncode is not None


def test_no_load_starts_nothing_and_a_negative_one_is_refused():
    with busy_load(0) as spinners:
        assert spinners == []
    with pytest.raises(ValueError, match="got -1"), busy_load(-1):
        pass


def test_busy_processes_run_on_the_cpus_given():
    cpu = min(os.sched_getaffinity(0))
    with busy_load(2, (cpu,)) as spinners:
        assert [os.sched_getaffinity(s.pid) for s in spinners] == [{cpu}, {cpu}]
    with busy_load(1) as spinners:
        assert os.sched_getaffinity(spinners[0].pid) == os.sched_getaffinity(0)
