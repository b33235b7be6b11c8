"""The engine-process layer: probing, honest search timing, search outcomes, the pool; and the
parsing of search output (lab.search_info)."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import statistics

import chess
import chess.engine
import numpy as np
import pytest

from lab.engine_process import (
    XBOARD_HINT,
    EngineError,
    EnginePool,
    EngineProcess,
    probe_engine,
    probe_engines_at_once,
)
from lab.experiment import BUILTIN_ENGINES
from lab.records import EngineSpec
from lab.search_info import parse_search_lines

STOCKFISH = "/usr/games/stockfish"


def test_probe_stockfish_reports_identity_and_options(stockfish) -> None:
    identity = probe_engine(stockfish("sf"))
    assert identity.name.startswith("Stockfish")
    assert identity.version and identity.version[0].isdigit()
    assert identity.author and "Stockfish" in identity.author
    assert identity.protocol == "uci"
    assert identity.path == os.path.realpath(STOCKFISH)
    assert identity.options["Hash"]["type"] == "spin" and identity.options["Hash"]["min"] == 1
    assert "Skill Level" in identity.options


def test_engines_are_probed_side_by_side(fake, tmp_path) -> None:
    # Each fake finishes its handshake only once the other has started (its log file exists):
    # probed one after the other, the first would time out waiting for the second.
    first, second = tmp_path / "first.log", tmp_path / "second.log"
    engines = [fake("one", log=first, uciok_after=second),
               fake("two", log=second, uciok_after=first),
               EngineSpec("ghost", [str(tmp_path / "nowhere")])]
    one, two, ghost = probe_engines_at_once(engines)
    assert one.name == two.name == "Fake 1.0"
    assert isinstance(ghost, EngineError) and "engine 'ghost'" in str(ghost)


def test_probe_errors_name_the_engine_and_the_problem(stockfish, fake, tmp_path) -> None:
    with pytest.raises(EngineError, match=r"engine 'ghost': binary .*/nowhere/ghost.* not found"):
        probe_engine(EngineSpec("ghost", [str(tmp_path / "nowhere" / "ghost")]))
    with pytest.raises(EngineError, match=r"engine 'ghost2': binary 'no-such-engine-x' not found"):
        probe_engine(EngineSpec("ghost2", ["no-such-engine-x"]))
    with pytest.raises(EngineError, match=r"engine 'sf' has no option 'Hsah'"):
        probe_engine(stockfish("sf", Hsah=32))
    with pytest.raises(EngineError, match=r"engine 'sf': bad option value"):
        probe_engine(stockfish("sf", Hash=10**9))
    silent = fake("mute", fault="nouciok")
    silent.startup_timeout_s = 0.5
    with pytest.raises(EngineError,
                       match=r"engine 'mute': the uci handshake timed out after 0.5 s; is this "
                       r"an XBoard engine\?"):
        probe_engine(silent)
    with pytest.raises(EngineError, match=r"engine 'x': unknown protocol 'cecp'"):
        probe_engine(EngineSpec("x", [STOCKFISH], protocol="cecp"))


def test_an_option_value_the_engine_refuses_is_an_error_naming_it() -> None:
    """Our engine declares UCI_Elo from 600 but refuses 650 while its shipped table (rows from
    710) is loaded, with an `info string error`: the engine does not start with the 1200 it
    kept, and the error names the engine and the refusal. The same level with the formulas'
    table empty starts."""
    spec = EngineSpec("L650", list(BUILTIN_ENGINES["tempo"]),
                      options={"UCI_LimitStrength": True, "UCI_Elo": 650})
    with pytest.raises(EngineError, match=r"engine 'L650' refused its options: error: UCI_Elo "
                       r"650 is outside the range 710\.\.1740 of EloTable <calibrated>"):
        probe_engine(spec)
    formulas = dataclasses.replace(spec, options={"EloTable": "", **spec.options})
    assert probe_engine(formulas).protocol == "uci"


def test_an_xboard_engine_taken_for_uci_gets_a_hint_at_its_first_reply(phalanx) -> None:
    """phalanx answers `uci` with 'Illegal move: uci' (and 'tellics ...'); that reply ends the
    handshake with the hint at once, not after the start-up timeout (a minute here, so a missed
    reply would fail on the timeout message instead)."""
    mistaken = EngineSpec("phalanx", phalanx.cmd, protocol="uci", startup_timeout_s=60.0)
    with pytest.raises(EngineError) as caught:
        probe_engine(mistaken)
    message = str(caught.value)
    assert message.startswith("engine 'phalanx' answered uci with ")
    assert message.endswith(XBOARD_HINT) and "timed out" not in message
    assert XBOARD_HINT == ('is this an XBoard engine? set protocol = "xboard" (tempo match: '
                           'xboard=PROGRAM)')


def test_probe_xboard_engines(phalanx, no_setboard_xboard) -> None:
    identity = probe_engine(phalanx)
    assert identity.name == "Phalanx XXV" and identity.protocol == "xboard"
    with pytest.raises(EngineError,
                       match="engine 'fairy' lacks the setboard feature python-chess needs"):
        probe_engine(no_setboard_xboard)


async def _searches(spec: EngineSpec, count: int, limit: chess.engine.Limit) -> list:
    """`count` searches along a game; (outcome, root board) pairs."""
    process = await EngineProcess.start(spec)
    board = chess.Board()
    outcomes = []
    try:
        for _ in range(count):
            outcome = await process.search(board, limit, game="g", answer_timeout_s=10,
                                           ready_timeout_s=10, stop_grace_s=1)
            assert outcome.status == "ok", outcome
            outcomes.append((outcome, board.copy()))
            board.push(outcome.move)
    finally:
        await process.quit()
    return outcomes


def test_measured_time_matches_the_engines_own_time(instant, stockfish) -> None:
    with EnginePool() as pool:
        instant_moves = pool.run(_searches(instant, 30, chess.engine.Limit(white_clock=60,
                                                                           black_clock=60)))
        sf_moves = pool.run(_searches(stockfish("sf"), 6, chess.engine.Limit(time=0.1)))
    # The instant engine answers within a millisecond of reading `go`: what the harness measures
    # beyond its own account is pipe and event-loop latency, small even on a busy machine.
    latency = []
    for outcome, board in instant_moves:
        assert outcome.go_at < outcome.answer_at
        assert outcome.elapsed_ms == pytest.approx((outcome.answer_at - outcome.go_at) * 1000)
        assert any(line.startswith("info depth 1") for line in outcome.lines)
        latency.append(outcome.elapsed_ms - parse_search_lines(outcome.lines, board).reported_ms)
    assert statistics.median(latency) < 20
    # Stockfish at movetime 100 ms: measured and reported time agree within a few ms (the bounds
    # leave room for a machine loaded by other work).
    diffs = []
    for outcome, board in sf_moves:
        reported = parse_search_lines(outcome.lines, board).reported_ms
        assert 90 <= outcome.elapsed_ms < 500
        diffs.append(outcome.elapsed_ms - reported)
    assert abs(statistics.median(diffs)) < 25 and max(abs(d) for d in diffs) < 250


def test_an_engine_plays_with_the_multipv_it_is_given(stockfish) -> None:
    """python-chess resets `MultiPV` to the default before each `go` of a game; the harness
    sends the experiment's value instead (as cutechess does), so Stockfish searches three lines
    at every move, and the move, score and PV recorded are those of the first."""
    with EnginePool() as pool:
        moves = pool.run(_searches(stockfish("sf", MultiPV=3), 3, chess.engine.Limit(depth=8)))
    for outcome, board in moves:
        assert any(" multipv 3 " in line for line in outcome.lines)
        search = parse_search_lines(outcome.lines, board)
        assert search.pv and search.pv.split()[0] == outcome.move.uci()


def test_options_the_harness_sets_are_refused_with_where_to_set_them(stockfish) -> None:
    with pytest.raises(EngineError, match=r"engine 'sf': option 'Ponder' is set by the harness; "
                                          r"use the engine's `ponder` key"):
        probe_engine(stockfish("sf", Ponder=True))
    with pytest.raises(EngineError, match=r"engine 'sf': option 'UCI_Chess960' is set by the "
                                          r"harness; use the experiment's `variant`"):
        probe_engine(stockfish("sf", UCI_Chess960=True))
    with pytest.raises(EngineError, match=r"engine 'sf': bad option value.*MultiPV"):
        probe_engine(stockfish("sf", MultiPV=1000))


@pytest.mark.parametrize(("fault", "status"), [
    ("crash", "crashed"), ("hang", "stalled"), ("illegal", "illegal"), ("malformed", "illegal"),
])
def test_search_outcomes_of_faults(fake, fault, status) -> None:
    async def run() -> tuple:
        process = await EngineProcess.start(fake("f", fault=fault))
        outcome = await process.search(chess.Board(), chess.engine.Limit(time=0.2), game="g",
                                       answer_timeout_s=0.5, ready_timeout_s=5, stop_grace_s=0.3)
        alive = process.alive
        await process.quit()
        return outcome, process.faulted, alive

    with EnginePool() as pool:
        outcome, faulted, alive = pool.run(run())
    assert outcome.status == status
    expected_text = {"illegal": "a1b4", "malformed": "zz99"}.get(fault)
    if expected_text is not None:
        assert outcome.move_text == expected_text
    assert faulted == (fault in ("crash", "hang"))
    assert alive == (fault in ("illegal", "malformed"))


def test_slow_answer_after_stop_is_late_not_stalled(fake) -> None:
    async def run():
        process = await EngineProcess.start(fake("slow", fault="slow", slow_ms=700))
        outcome = await process.search(chess.Board(), chess.engine.Limit(time=0.1), game="g",
                                       answer_timeout_s=0.3, ready_timeout_s=5, stop_grace_s=3)
        await process.quit()
        return outcome, process.faulted

    with EnginePool() as pool:
        outcome, faulted = pool.run(run())
    assert outcome.status == "late" and not faulted
    assert 650 <= outcome.elapsed_ms < 3000


def test_pool_reuses_healthy_engines_and_replaces_faulted_ones(fake) -> None:
    spec = fake("f")
    with EnginePool() as pool:
        first = pool.run(pool.acquire(spec))
        second = pool.run(pool.acquire(spec))
        assert first.pid != second.pid and pool.started == 2
        pool.run(pool.release(first))
        pool.run(pool.release(second))
        assert sorted(pool.idle_pids()) == sorted([first.pid, second.pid])
        again = pool.run(pool.acquire(spec))
        assert again.pid in (first.pid, second.pid) and pool.started == 2
        again.faulted = True
        pool.run(pool.release(again))
        assert again.pid not in pool.idle_pids() and not again.alive
        pool.run(pool.acquire(spec))
        assert pool.started == 2  # the other idle one
        pool.run(pool.acquire(spec))
        assert pool.started == 3
        idle = [process for _, process in pool._idle]
    assert all(not process.alive for process in idle)


def test_parsing_stops_once_every_figure_is_known(monkeypatch) -> None:
    """A long search's many info lines cost one python-chess parse when the last one has every
    figure; the last telemetry line counts."""
    board = chess.Board()
    lines = [f"info depth {d} seldepth {d} score cp {d} nodes {d * 100} nps 1000 time {d} pv e2e4"
             for d in range(1, 30)]
    lines += ["info string tm {\"ply\": 1}", "info string tm {\"ply\": 2}"]
    calls = []
    real = chess.engine._parse_uci_info
    monkeypatch.setattr(chess.engine, "_parse_uci_info",
                        lambda text, root: calls.append(text) or real(text, root))
    info = parse_search_lines(lines, board)
    assert len(calls) == 1
    assert (info.depth, info.score_cp, info.nodes, info.reported_ms) == (29, 29, 2900, 29.0)
    assert info.telemetry == {"ply": 2}


def test_parse_uci_lines_pick_the_last_multipv1_score_from_the_movers_view() -> None:
    board = chess.Board("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1")
    lines = [
        "info depth 1 seldepth 1 multipv 1 score cp 15 nodes 20 nps 2000 time 10 pv e8d7",
        "info depth 2 seldepth 3 multipv 1 score cp -40 upperbound nodes 90 time 20 pv e8d8",
        "info depth 2 seldepth 4 multipv 2 score cp 300 nodes 120 time 25 pv e8f7",
        "info string tm {\"tm\": \"smooth\", \"ply\": 2, \"budget_ms\": 120.5}",
        "info nodes 150 nps 6000 time 26",
        "readyok",
    ]
    info = parse_search_lines(lines, board)
    assert (info.depth, info.seldepth, info.score_cp, info.score_mate) == (2, 3, -40, None)
    assert info.pv == "e8d8"
    assert (info.nodes, info.nps, info.reported_ms) == (150, 6000, 26.0)
    assert info.telemetry == {"tm": "smooth", "ply": 2, "budget_ms": 120.5}
    mate = parse_search_lines(["info depth 5 score mate -3 pv e8d7"], board)
    assert (mate.score_cp, mate.score_mate) == (None, -3)
    bad = parse_search_lines(["info string tm {oops"], board)
    assert bad.telemetry == {} and "not JSON" in bad.telemetry_error
    empty = parse_search_lines([], board)
    assert empty.depth is None and empty.score_cp is None and empty.telemetry == {}


def test_parse_xboard_thinking_lines() -> None:
    board = chess.Board()
    info = parse_search_lines(["  4     25      12      3081 e2e4 e7e5 g1f3",
                               "you play both", "5 -31 20 6000 d2d4 d7d5"], board, "xboard")
    assert (info.depth, info.score_cp, info.nodes, info.reported_ms) == (5, -31, 6000, 200.0)
    assert info.pv == "d2d4 d7d5"


def test_instant_engine_and_the_harness_bench(capsys) -> None:
    from lab.bench.harness import latency_figures
    from lab.cli import main

    figures = latency_figures(1)
    # 100 full moves, or fewer when the random game ends on the board first.
    assert 0 < figures["measured"].size <= 200
    assert figures["turnaround"].size == figures["measured"].size - 1
    assert (figures["turnaround"] > 0).all() and float(np.median(figures["turnaround"])) < 50
    assert main(["bench", "harness", "--latency-games", "1", "--games", "0",
                 "--forfeit-games", "0", "--ply-games", "2"]) == 0
    out = capsys.readouterr().out
    assert "bestmove received -> next go sent" in out and "p99" in out
    assert "ms per ply while playing" in out and "command to first go:" in out


async def _thread_cpus(spec: EngineSpec) -> dict[int, set[int]]:
    """The CPUs each thread of the started engine may run on, after one search (so that a
    search thread exists)."""
    process = await EngineProcess.start(spec)
    try:
        outcome = await process.search(chess.Board(), chess.engine.Limit(depth=8), game="g",
                                       answer_timeout_s=10, ready_timeout_s=10, stop_grace_s=1)
        assert outcome.status == "ok", outcome
        pid = process.pid
        return {int(tid): os.sched_getaffinity(int(tid)) for tid in os.listdir(f"/proc/{pid}/task")}
    finally:
        await process.quit()


def test_an_engine_with_cpus_runs_every_thread_there(stockfish) -> None:
    """`cpus` pins the process before its program runs: Stockfish's threads, started at once
    and by its `Threads` option, all run on the CPU given, and without `cpus` on any."""
    usable = os.sched_getaffinity(0)
    cpu = max(usable)
    pinned = asyncio.run(_thread_cpus(dataclasses.replace(stockfish("sf", Threads=2),
                                                          cpus=(cpu,))))
    assert len(pinned) >= 3 and all(cpus == {cpu} for cpus in pinned.values())  # main + 2
    free = asyncio.run(_thread_cpus(stockfish("sf")))
    assert all(cpus == usable for cpus in free.values())


def test_cpus_outside_this_process_are_refused_with_the_engine_named(stockfish) -> None:
    spec = dataclasses.replace(stockfish("sf"), cpus=(4095,))
    with pytest.raises(EngineError, match=r"engine 'sf': key 'cpus' names CPU \[4095\] but this "
                                          r"process may run on \[.*\] only"):
        probe_engine(spec)
