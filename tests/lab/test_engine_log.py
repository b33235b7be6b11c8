"""Engine logs: the I/O log per engine process, stderr kept (bounded), and a crash's exit code and
stderr in the game's reason and the store; with the crashing fake engine, Stockfish and a run."""

from __future__ import annotations

import io
import logging
import re
import subprocess
import sys
from pathlib import Path

import chess
import pytest

from lab.engine_log import EngineLogs, EngineTranscript, exit_description
from lab.engine_process import EngineError, EnginePool, probe_engine
from lab.experiment import BookConfig, Experiment, LogConfig
from lab.game import Timeouts, play_game
from lab.records import Adjudication, EngineSpec, GameTask
from lab.runner import run_experiment
from lab.store import open_store
from timecontrol.control import parse_time_control

STAMPED = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z ([<>!#]) (.*)$")


def task(white: EngineSpec, black: EngineSpec, logs: EngineLogs, tc: str = "2+0.1",
         game_id: str = "g1") -> GameTask:
    return GameTask(game_id, 1, white, black, parse_time_control(tc), chess.STARTING_FEN, [],
                    Adjudication(max_moves=3), logs=logs)


def parse_log(path: Path) -> list[tuple[str, str]]:
    lines = path.read_text().splitlines()
    parsed = [STAMPED.match(line) for line in lines]
    assert all(parsed), [line for line, m in zip(lines, parsed, strict=True) if m is None]
    return [(m.group(1), m.group(2)) for m in parsed if m is not None]


def test_exit_statuses_in_words() -> None:
    assert exit_description(139) == "exit code 139"
    assert exit_description(0) == "exit code 0"
    assert exit_description(-11) == "killed by signal 11 (SIGSEGV)"
    assert exit_description(-9) == "killed by signal 9 (SIGKILL)"
    assert exit_description(None) == "still running"


def test_stderr_is_bounded_and_keeps_the_latest_lines(tmp_path) -> None:
    transcript = EngineTranscript()
    transcript.open(EngineLogs(stderr_dir=str(tmp_path), stderr_limit=1000), "my engine", 42)
    for number in range(200):
        transcript.stderr(f"line {number:03d} " + "x" * 20)
    transcript.close()
    current, previous = tmp_path / "my_engine-42.stderr", tmp_path / "my_engine-42.stderr.1"
    assert current.read_text().splitlines()[-1].startswith("line 199 ")
    assert previous.exists()
    assert current.stat().st_size + previous.stat().st_size <= 1000
    assert sorted(p.name for p in tmp_path.iterdir()) == [current.name, previous.name]
    # the tail for a reason: the last five lines, cut to TAIL_CHARS
    assert transcript.stderr_tail().split(" | ")[-1].startswith("line 199 ")
    assert transcript.stderr_tail().count(" | ") == 4


def test_lines_before_the_files_are_named_are_kept(tmp_path) -> None:
    transcript = EngineTranscript()
    transcript.stderr("early warning")
    transcript.received("id name X")
    transcript.open(EngineLogs(io_dir=str(tmp_path / "io"), stderr_dir=str(tmp_path / "err")),
                    "x", 7)
    transcript.sent("uci")
    transcript.close()
    assert [d for d, _ in parse_log(tmp_path / "io" / "x-7.log")] == ["#", "!", "<", ">"]
    assert (tmp_path / "err" / "x-7.stderr").read_text() == "early warning\n"


def test_an_engine_dying_in_the_handshake_is_named_with_its_exit_code_and_stderr() -> None:
    # as an engine missing a shared library: a line on stderr, exit status 127
    spec = EngineSpec("broken", [sys.executable, "-c", "import sys; sys.stderr.write("
                                 "'broken: error while loading libfoo.so\\n'); sys.exit(127)"])
    with pytest.raises(EngineError) as info:
        probe_engine(spec)
    assert str(info.value) == ("engine 'broken': died during the uci handshake (exit code 127; "
                               "stderr: broken: error while loading libfoo.so)")


def test_a_segfaulting_engine_leaves_its_exit_code_and_stderr_in_the_reason(fake, tmp_path):
    logs = EngineLogs(io_dir=str(tmp_path / "io"), stderr_dir=str(tmp_path / "stderr"))
    crashy, partner = fake("crashy", fault="segfault", at=2), fake("partner")
    with EnginePool() as pool:
        record = play_game(task(crashy, partner, logs), pool, Timeouts(stop_grace_s=0.5))
    assert (record.result, record.termination) == ("0-1", "abandoned")
    assert record.reason.startswith("White disconnected (exit code 139; stderr: ")
    assert record.reason.endswith("#1 main() at main.c:7 | fake: segmentation fault)")
    assert len(record.moves) == 2
    # one stderr file: the partner wrote nothing; the crash's trace is all there
    (stderr_file,) = (tmp_path / "stderr").iterdir()
    assert re.fullmatch(r"crashy-\d+\.stderr", stderr_file.name)
    assert stderr_file.read_text().splitlines() == [
        "fake: search started", "fake: stack trace:", "  #0 search() at search.c:42",
        "  #1 main() at main.c:7", "fake: segmentation fault"]
    # one I/O log per process, each the whole conversation in order
    logs_by_name = {p.name.split("-")[0]: p for p in (tmp_path / "io").iterdir()}
    assert sorted(logs_by_name) == ["crashy", "partner"]
    crashy_log = parse_log(logs_by_name["crashy"])
    sent = [text for direction, text in crashy_log if direction == ">"]
    assert sent[0] == "uci" and sum(text.startswith("go ") for text in sent) == 2
    assert ("<", "uciok") in crashy_log and ("!", "fake: segmentation fault") in crashy_log
    assert [text for d, text in crashy_log if d == "<" and text.startswith("bestmove")] == [
        "bestmove a2a3"]
    partner_log = parse_log(logs_by_name["partner"])
    assert ("<", f"bestmove {record.moves[1].move}") in partner_log


def test_a_run_keeps_stderr_by_default_and_stores_the_crash(fake, stockfish, tmp_path) -> None:
    crashy = fake("crashy", fault="segfault", at=2)
    exp = Experiment(name="t", engines=[crashy, stockfish("sf")],
                     tc=parse_time_control("nodes=2000"), games=2, challengers=["crashy"],
                     openings=BookConfig(paired=True), concurrency=1, out=tmp_path / "out",
                     adjudication=Adjudication(max_moves=5))
    assert exp.log == LogConfig()  # no I/O log, stderr kept: the default
    outcome = run_experiment(exp, stream=io.StringIO(), live=False)
    assert outcome.tournament.done == 2
    with open_store(exp.out) as store:
        games = store.games().set_index("game_id")
    assert (games["termination"] == "abandoned").all()
    assert games.loc["r0001-e01-g0", "reason"].startswith(
        "White disconnected (exit code 139; stderr: ")
    assert games.loc["r0001-e01-g1", "reason"].startswith(
        "Black disconnected (exit code 139; stderr: ")
    # one file per crashed process (the pool started a fresh one for the second game)
    stderr_files = sorted(p.name for p in (exp.out / "stderr").iterdir())
    assert len(stderr_files) == 2 and all(name.startswith("crashy-") for name in stderr_files)
    assert "segmentation fault" in (exp.out / "games.pgn").read_text()


def test_tempo_match_log_writes_one_file_per_engine_process(tmp_path) -> None:
    stockfish = "/usr/games/stockfish"
    if not Path(stockfish).exists():
        pytest.skip("Stockfish is not installed at /usr/games/stockfish")
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from lab.cli import main; sys.exit(main())",
         "match", stockfish, stockfish, "--tc", "nodes=500", "--games", "2", "--concurrency",
         "1", "--out", str(tmp_path / "out"), "--log", str(tmp_path / "logs"), "--plain"],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    files = sorted((tmp_path / "logs").iterdir())
    # each engine's probe, then one process per engine that the worker keeps for both games
    assert len(files) == 4 and all(re.fullmatch(r"stockfish(_2)?-\d+\.log", p.name)
                                   for p in files)
    logs = [parse_log(p) for p in files]
    for log in logs:
        assert [t for d, t in log if d == ">"][0] == "uci" and ("<", "uciok") in log
    played = [log for log in logs if any(text.startswith("go ") for _, text in log)]
    assert len(played) == 2
    for log in played:
        assert sum(text.startswith("bestmove") for d, text in log if d == "<") >= 2
    assert not (tmp_path / "out" / "stderr").exists()  # Stockfish writes nothing to stderr


def test_the_probe_of_a_mistaken_xboard_engine_is_logged(tmp_path) -> None:
    if not Path("/usr/games/phalanx").exists():
        pytest.skip("phalanx is not installed at /usr/games/phalanx")
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from lab.cli import main; sys.exit(main())",
         "match", "phalanx", "stockfish", "--out", str(tmp_path / "out"),
         "--log", str(tmp_path / "logs")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "is this an XBoard engine?" in done.stderr
    # Both engines are probed side by side: phalanx's failed handshake and Stockfish's good one
    # are each in a log of their own, and no game was played.
    files = {path.name.split("-")[0]: path for path in (tmp_path / "logs").iterdir()}
    assert sorted(files) == ["phalanx", "stockfish"]
    log = parse_log(files["phalanx"])
    assert (">", "uci") in log and ("<", "Illegal move: uci") in log
    assert ("<", "uciok") in parse_log(files["stockfish"])
    assert not any(text.startswith("go") for _, text in parse_log(files["stockfish"]))
    assert not (tmp_path / "out").exists()


def test_a_log_folder_that_cannot_be_written(fake, tmp_path, caplog) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    # the I/O log cannot be created: the engine does not start, and the game names why
    record = play_game(task(fake("w"), fake("b"), EngineLogs(io_dir=str(blocker / "io"))))
    assert record.termination == "abandoned"
    assert record.reason.startswith("White failed to start: engine 'w': cannot write its I/O log")
    # stderr cannot be kept: a warning, and the engine plays on (its tail still in the reason)
    crashy = fake("crashy", fault="segfault", at=2)
    with caplog.at_level(logging.WARNING, logger="lab.engine_log"):
        record = play_game(task(crashy, fake("b"), EngineLogs(stderr_dir=str(blocker / "err"))))
    assert record.reason.startswith("White disconnected (exit code 139; stderr: ")
    assert len(record.moves) == 2
    assert any("stderr file given up" in r.getMessage() for r in caplog.records)
