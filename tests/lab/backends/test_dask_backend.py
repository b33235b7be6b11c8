"""Gauntlets on real Dask clusters (LocalCluster worker processes, a `dask worker` process).

The engines are Stockfish with node limits (one thread, `ucinewgame` before each game), so a game
is the same move for move on any backend: the Dask store can be compared with the local one.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

distributed = pytest.importorskip("distributed")

from distributed import Client  # noqa: E402

from lab.backends.dask import local_cluster, run_dask, security_for  # noqa: E402
from lab.backends.local import run_local  # noqa: E402
from lab.backends.settings import DaskSettings  # noqa: E402
from lab.backends.worker import WorkerEngineError  # noqa: E402
from lab.experiment import Experiment, load_book_for  # noqa: E402
from lab.experiment_file import parse_experiment  # noqa: E402
from lab.records import GameRecord  # noqa: E402
from lab.schedule import build_schedule  # noqa: E402
from lab.store import open_store  # noqa: E402
from lab.tournament import Tournament  # noqa: E402
from timecontrol.control import parse_time_control  # noqa: E402

STOCKFISH = "/usr/games/stockfish"
BOOK = Path(__file__).parents[3] / "experiments" / "books" / "openings_8ply.epd"
DASK = str(Path(sys.executable).with_name("dask"))

pytestmark = [
    pytest.mark.skipif(not os.access(STOCKFISH, os.X_OK), reason="needs /usr/games/stockfish"),
    pytest.mark.timeout(240),
]


def experiment(out: Path, games: int, cmd: str = STOCKFISH, **extra: Any) -> Experiment:
    """Stockfish at 200 nodes against Stockfish at 100 nodes, 15 moves at most, paired book."""
    options = {"Threads": 1, "Hash": 16}
    data = {
        "name": "dask-test", "tc": "nodes=200", "concurrency": 2, "out": str(out),
        "schedule": {"games": games},
        "openings": {"file": str(BOOK)},
        "adjudication": {"max_moves": 15},
        "engines": [{"name": "sf200", "cmd": [cmd], "options": options},
                    {"name": "sf100", "cmd": [cmd], "options": options, "tc": "nodes=100"}],
        **extra,
    }
    exp = parse_experiment(data, "test.toml", out.parent)
    exp.book = load_book_for(exp)
    return exp


def play(exp: Experiment, backend: Callable[..., Tournament],
         on_game: Callable[[GameRecord], None] | None = None) -> Tournament:
    """Run (or resume) `exp` into its folder with `backend`, as `run_experiment` drives it."""
    with open_store(exp.out) as store:
        store.bind_experiment(exp.name, exp.identity(), exp.config())
        tournament = Tournament(exp, store, build_schedule(exp))
        return backend(tournament, exp.concurrency, on_game)


def dask(settings: DaskSettings, stream: Any = None) -> Callable[..., Tournament]:
    return functools.partial(run_dask, settings=settings, stream=stream or io.StringIO())


def stored(out: Path) -> tuple[Any, Any]:
    with open_store(out) as store:
        return store.games(), store.moves()


def moves_by_game(moves: Any) -> dict[str, list[str]]:
    return {gid: list(group.sort_values("ply")["move"]) for gid, group in moves.groupby("game_id")}


def test_lab_cluster_resumes_a_local_run_and_plays_what_the_local_pool_plays(
        tmp_path: Path) -> None:
    """2 games locally, then the same folder resumed to 6 on the lab's own 2-worker LocalCluster,
    equals 6 games played locally: same ids, each once, same results and moves."""
    assert play(experiment(tmp_path / "local", 6), run_local).done == 6
    mixed = tmp_path / "mixed"
    play(experiment(mixed, 2), run_local)
    stream = io.StringIO()
    tournament = play(experiment(mixed, 6), dask(DaskSettings(n_workers=2), stream))
    assert not tournament.failed and tournament.stop_reason is None
    assert tournament.resumed == 2 and tournament.done == 6
    assert "Dask scheduler tcp://127.0.0.1:" in stream.getvalue()
    assert "2 workers" in stream.getvalue()

    local_games, local_moves = stored(tmp_path / "local")
    games, moves = stored(mixed)
    assert len(games) == 6 and games["game_id"].is_unique
    assert set(games["game_id"]) == set(local_games["game_id"])
    results = dict(zip(games["game_id"], games["result"], strict=True))
    assert results == dict(zip(local_games["game_id"], local_games["result"], strict=True))
    assert moves_by_game(moves) == moves_by_game(local_moves)

    on_dask = games[games["worker_backend"] == "dask"]
    assert len(on_dask) == 4
    assert on_dask["worker_address"].str.startswith("tcp://127.0.0.1:").all()
    assert (on_dask["worker_host"] == socket.gethostname()).all()
    assert on_dask["worker_cpu"].str.len().gt(0).all()
    assert on_dask["worker_address"].nunique() == 2


@pytest.fixture(scope="module")
def two_workers() -> Any:
    """A LocalCluster of two one-thread worker processes (with nannies) and a client of it."""
    with local_cluster(DaskSettings(), 2) as cluster, Client(cluster) as client:
        yield cluster, client


def test_a_killed_worker_loses_no_game(tmp_path: Path, two_workers: Any) -> None:
    """SIGKILL a worker in the middle of a game: the game is played again elsewhere, every game
    ends up in the store exactly once, and at the end the workers keep no engine running."""
    cluster, client = two_workers
    killed: dict[str, str] = {}

    def kill_a_busy_worker(_record: GameRecord) -> None:
        if killed:
            return
        for address, keys in client.processing().items():
            games = [key for key in keys if str(key).startswith("tempo-game-")]
            if games:
                assert client.run(engine_children, workers=[address])[address]
                pid = client.run(os.getpid, workers=[address])[address]
                os.kill(pid, signal.SIGKILL)
                key = str(games[0])  # tempo-game-RUN-GAMEID-ATTEMPT
                killed.update(address=address, game_id=key.split("-", 3)[3].rsplit("-", 1)[0])
                return

    out = tmp_path / "killed"
    settings = DaskSettings(scheduler=cluster.scheduler_address)
    tournament = play(experiment(out, 8), dask(settings), kill_a_busy_worker)
    assert killed, "no worker was busy when the first game finished"
    assert not tournament.failed and tournament.done == 8
    games, moves = stored(out)
    assert len(games) == 8 and games["game_id"].is_unique
    assert set(moves["game_id"]) == set(games["game_id"])
    replayed = games.set_index("game_id").loc[killed["game_id"]]
    assert replayed["worker_address"] != killed["address"]
    engines = client.run(engine_children)
    assert engines and all(pids == [] for pids in engines.values()), engines


def engine_children() -> list[int]:
    """On a worker: the process ids of its Stockfish children (the engines it keeps)."""
    me = str(os.getpid())
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)
            name = fields[0].split("(", 1)[1]
        except (OSError, IndexError):
            continue
        if fields[1].split()[1] == me and name == "stockfish":
            found.append(int(stat.parent.name))
    return found


def test_an_sprt_decision_cancels_the_outstanding_games(tmp_path: Path,
                                                        two_workers: Any) -> None:
    """Stockfish at 2000 nodes against Stockfish at one node, unpaired, SPRT [0, 400] logistic
    with alpha = beta = 0.2: three straight wins accept H1; the other games never run."""
    cluster, client = two_workers
    exp = experiment(tmp_path / "sprt", 40, openings={"file": str(BOOK), "paired": False},
                     adjudication={"resign_move_count": 2, "resign_score_cp": 500},
                     sprt={"elo0": 0, "elo1": 400, "alpha": 0.2, "beta": 0.2,
                           "model": "logistic"})
    exp.engines[0].tc, exp.engines[1].tc = (parse_time_control("nodes=2000"),
                                            parse_time_control("nodes=1"))
    tournament = play(exp, dask(DaskSettings(scheduler=cluster.scheduler_address)))
    assert tournament.stop_reason is not None and "H1 accepted" in tournament.stop_reason
    assert not tournament.failed and not tournament.in_flight
    games, _ = stored(exp.out)
    assert 3 <= len(games) < 10 and games["game_id"].is_unique
    assert len(tournament.pending) == 40 - len(games)

    def tempo_keys(dask_scheduler: Any) -> list[str]:
        return [str(key) for key in dask_scheduler.tasks if str(key).startswith("tempo-game")]

    assert client.run_on_scheduler(tempo_keys) == []


@pytest.fixture
def fish_cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A LocalCluster whose one worker finds the engine `tempo-test-fish` on its PATH, as the
    coordinator does, and `add_fishless()`: a `dask worker` process started with the PATH
    without it (as on a machine where it is not installed); it returns that worker's address."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "tempo-test-fish").symlink_to(STOCKFISH)
    plain_path = os.environ["PATH"]
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{plain_path}")
    started: list[subprocess.Popen[bytes]] = []
    with local_cluster(DaskSettings(), 1) as cluster, Client(cluster) as client:

        def add_fishless() -> str:
            started.append(subprocess.Popen(
                [DASK, "worker", cluster.scheduler_address, "--nthreads", "1", "--no-dashboard",
                 "--host", "127.0.0.1", "--name", "no-fish"],
                env={**os.environ, "PATH": plain_path}, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, start_new_session=True))
            client.wait_for_workers(2, timeout=60)
            return next(addr for addr, info in client.scheduler_info()["workers"].items()
                        if info["name"] == "no-fish")

        try:
            yield cluster, next(iter(client.nthreads())), add_fishless
        finally:
            for worker in started:
                os.killpg(worker.pid, signal.SIGTERM)
                worker.wait(30)


def test_a_worker_without_the_engine_is_refused_before_any_game(
        tmp_path: Path, fish_cluster: Any) -> None:
    cluster, good, add_fishless = fish_cluster
    bad = add_fishless()
    out = tmp_path / "refused"
    settings = DaskSettings(scheduler=cluster.scheduler_address)
    with pytest.raises(WorkerEngineError) as err:
        play(experiment(out, 4, cmd="tempo-test-fish"), dask(settings))
    message = str(err.value)
    assert "no game was started" in message
    assert f"worker {bad}" in message and good not in message
    assert "engine 'sf200'" in message and "engine 'sf100'" in message
    assert "'tempo-test-fish' not found" in message
    games, _ = stored(out)
    assert games.empty


def test_a_worker_refuses_an_engine_that_cannot_play_the_runs_variant(tmp_path: Path) -> None:
    """A Chess960 run: the worker's probe checks the variant as the local probe does, so an
    engine without UCI_Chess960 is refused on the worker before any game, named."""
    fake = [sys.executable, str(Path(__file__).parents[1] / "fakes" / "fake_uci.py")]
    out = tmp_path / "960"
    data = {
        "name": "dask-960", "tc": "nodes=200", "concurrency": 1, "out": str(out),
        "variant": "chess960", "schedule": {"games": 2}, "adjudication": {"max_moves": 15},
        "engines": [{"name": "sf", "cmd": [STOCKFISH], "options": {"Threads": 1, "Hash": 16}},
                    {"name": "fake", "cmd": fake}],
    }
    exp = parse_experiment(data, "test.toml", tmp_path)
    exp.book = load_book_for(exp)
    with local_cluster(DaskSettings(), 1) as cluster:
        with pytest.raises(WorkerEngineError) as err:
            play(exp, dask(DaskSettings(scheduler=cluster.scheduler_address)))
    message = str(err.value)
    assert "engine 'fake' cannot play variant 'chess960': it declares no UCI_Chess960 option" \
        in message and "engine 'sf'" not in message and "no game was started" in message
    games, _ = stored(out)
    assert games.empty


def test_a_worker_without_the_engine_joining_later_stops_the_run(
        tmp_path: Path, fish_cluster: Any) -> None:
    """It joins after the first game: it checks the engines before its first game and refuses;
    the run stops as failed, naming it, and its game is not lost (it stays pending)."""
    cluster, good, add_fishless = fish_cluster
    joined: list[str] = []

    def join_once(_record: GameRecord) -> None:
        if not joined:
            joined.append(add_fishless())

    settings = DaskSettings(scheduler=cluster.scheduler_address)
    exp = experiment(tmp_path / "late", 8, cmd="tempo-test-fish")
    tournament = play(exp, dask(settings), join_once)
    assert tournament.failed and tournament.stop_reason is not None
    assert f"worker {joined[0]}" in tournament.stop_reason
    assert "'tempo-test-fish' not found" in tournament.stop_reason
    games, _ = stored(exp.out)
    assert 1 <= len(games) < 8 and games["game_id"].is_unique
    assert set(games["worker_address"]) == {good}
    assert len(tournament.pending) == 8 - len(games)


def non_loopback_address() -> str | None:
    """This machine's address on its default route, if it has one that is not loopback."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith("127.") else address


def listening(pids: set[int]) -> list[str]:
    """Local addresses of the TCP sockets these processes listen on (from `ss`)."""
    out = subprocess.run(["ss", "-Hltnp"], capture_output=True, text=True, check=True).stdout
    return [line.split()[3] for line in out.splitlines()
            if any(f"pid={pid}," in line for pid in pids)]


def test_the_lab_cluster_listens_on_loopback_only() -> None:
    """Scheduler, nannies, workers and the scheduler's HTTP routes: 127.0.0.1, nothing else."""
    with local_cluster(DaskSettings(), 1) as cluster, Client(cluster) as client:
        addresses = [cluster.scheduler_address, *client.nthreads()]
        assert all(address.startswith("tcp://127.0.0.1:") for address in addresses)
        if shutil.which("ss"):
            pids = {os.getpid(), *client.run(os.getpid).values()}
            sockets = listening(pids)
            assert len(sockets) >= 4
            assert all(address.startswith("127.0.0.1:") for address in sockets), sockets
        outside = non_loopback_address()
        if outside is None:
            pytest.skip("no non-loopback address to try from")
        for address in addresses:
            port = int(address.rsplit(":", 1)[1])
            with pytest.raises(ConnectionRefusedError):
                socket.create_connection((outside, port), timeout=5).close()


def make_certificates(folder: Path) -> dict[str, str]:
    """A CA and one certificate it signs (for 127.0.0.1), made with the openssl command."""

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
            "ca.pem", "-days", "2", "-subj", "/CN=tempo test CA")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "lab.key", "-out", "lab.csr",
            "-subj", "/CN=127.0.0.1")
    (folder / "ext.cnf").write_text("subjectAltName = IP:127.0.0.1, DNS:localhost\n")
    openssl("x509", "-req", "-in", "lab.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "lab.pem", "-days", "2", "-extfile", "ext.cnf")
    return {"tls_ca_file": "ca.pem", "tls_cert": "lab.pem", "tls_key": "lab.key"}


def test_a_tls_cluster_plays_and_refuses_plain_clients(tmp_path: Path) -> None:
    """A LocalCluster with the test's certificates: clients with another CA's certificate or
    none are refused; one with the right certificate plays."""
    certs = tmp_path / "certs"
    certs.mkdir()
    table = {"kind": "dask", **make_certificates(certs)}
    settings = DaskSettings.from_table(table, "test.toml", base=certs)
    with local_cluster(settings, 1) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tls://127.0.0.1:")
        strangers = tmp_path / "strangers"
        strangers.mkdir()
        other = DaskSettings.from_table({"kind": "dask", "scheduler": address,
                                         **make_certificates(strangers)}, "x.toml", base=strangers)
        with pytest.raises((OSError, TimeoutError)):
            Client(address, security=security_for(other), timeout=5)
        with pytest.raises((OSError, TimeoutError)):
            Client(address.replace("tls://", "tcp://"), timeout=5)
        remote = DaskSettings.from_table({**table, "scheduler": address}, "test.toml",
                                         base=certs)
        stream = io.StringIO()
        tournament = play(experiment(tmp_path / "tls", 2), dask(remote, stream))
    assert "WARNING" not in stream.getvalue()
    assert tournament.done == 2
    games, _ = stored(tmp_path / "tls")
    assert list(games["worker_address"].str[:6].unique()) == ["tls://"]


def test_plain_tcp_off_loopback_is_warned_about(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The warning comes before connecting (here to a port where nothing listens)."""
    monkeypatch.setattr("lab.backends.dask.CONNECT_TIMEOUT_S", 2.0)
    outside = non_loopback_address()
    if outside is None:
        pytest.skip("no non-loopback address")
    with socket.socket() as free:
        free.bind((outside, 0))
        port = free.getsockname()[1]
    stream = io.StringIO()
    settings = DaskSettings(scheduler=f"tcp://{outside}:{port}")
    with pytest.raises(Exception, match=f"cannot reach the Dask scheduler at tcp://{outside}"):
        play(experiment(tmp_path / "open", 2), dask(settings, stream))
    assert f"WARNING: the Dask scheduler tcp://{outside}:{port} is plain tcp://" in \
        stream.getvalue()


def test_dask_command_line_cluster_with_tls_and_a_slower_worker(tmp_path: Path) -> None:
    """docs/dask.md's commands: `dask scheduler` and `dask worker` processes with TLS; the
    worker's TEMPO_TC_FACTOR=2 doubles its clocks, and each game records the factor."""
    certs = tmp_path / "certs"
    certs.mkdir()
    names = make_certificates(certs)
    tls = [option for key, flag in (("tls_ca_file", "--tls-ca-file"), ("tls_cert", "--tls-cert"),
                                    ("tls_key", "--tls-key"))
           for option in (flag, str(certs / names[key]))]
    info = tmp_path / "scheduler.json"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL,
             "start_new_session": True}
    scheduler = subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0",
                                  "--protocol", "tls", "--no-dashboard", "--scheduler-file",
                                  str(info), *tls], **quiet)
    processes = [scheduler]
    try:
        for _ in range(300):
            if info.exists() and info.stat().st_size:
                break
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        processes.append(subprocess.Popen(
            [DASK, "worker", address, "--nthreads", "2", "--no-dashboard", "--host",
             "127.0.0.1", *tls], env={**os.environ, "TEMPO_TC_FACTOR": "2"}, **quiet))
        settings = DaskSettings.from_table({"kind": "dask", "scheduler": address, **names},
                                           "test.toml", base=certs)
        exp = experiment(tmp_path / "cli", 4)
        exp.tc = parse_time_control("0.5+0.01")
        for spec in exp.engines:
            spec.tc = None
        tournament = play(exp, dask(settings))
    finally:
        for process in reversed(processes):
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(30)
    assert tournament.done == 4 and not tournament.failed
    games, moves = stored(exp.out)
    assert set(games["white_tc"]) == set(games["black_tc"]) == {"1+0.02"}
    assert (games["worker_tc_factor"] == 2.0).all()
    assert games["worker_address"].nunique() == 1
    assert games["worker_address"].iloc[0].startswith("tls://127.0.0.1:")
    first = moves[moves["ply"] == moves.groupby("game_id")["ply"].transform("min")]
    assert (first["clock_before_ms"] == 1000 + 20).all()  # the first increment is on the clock


@pytest.mark.slow
def test_our_engine_plays_on_dask_with_its_telemetry(tmp_path: Path) -> None:
    """`builtin = "tempo"` against Stockfish on the lab's LocalCluster: the games and our
    engine's time-manager telemetry reach the store."""
    data = {
        "name": "tempo-on-dask", "tc": "2+0.05", "concurrency": 2, "margin_ms": 300,
        "out": str(tmp_path / "tempo"), "schedule": {"games": 2},
        "openings": {"file": str(BOOK)}, "adjudication": {"max_moves": 20},
        "engines": [{"name": "tempo", "builtin": "tempo"},
                    {"name": "sf", "cmd": [STOCKFISH], "options": {"Skill Level": 0}}],
    }
    exp = parse_experiment(data, "test.toml", tmp_path)
    exp.book = load_book_for(exp)
    tournament = play(exp, dask(DaskSettings(n_workers=2)))
    assert tournament.done == 2 and not tournament.failed
    games, moves = stored(exp.out)
    assert (games["worker_backend"] == "dask").all()
    ours = moves[moves["engine"] == "tempo"]
    assert len(ours) > 0 and ours["tm_budget_ms"].notna().all()
    assert (ours["tm_tm"].notna()).all()


def test_a_worker_whose_checkout_holds_other_engine_sources_is_refused(tmp_path: Path) -> None:
    """`builtin = "tempo"` runs the checkout the coordinator's command names; a worker whose copy
    there holds other sources (another commit) is refused before any game, its digest named,
    where it would otherwise play another engine under the same name."""
    from lab.engine_source import SOURCE_FOLDERS
    from lab.experiment import builtin_command

    root = tmp_path / "checkout"
    for folder in SOURCE_FOLDERS:
        shutil.copytree(Path(__file__).parents[3] / folder, root / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    (root / "engine" / "evaluate.py").write_text("# another commit\n", encoding="utf-8")
    data = {
        "name": "tempo-elsewhere", "tc": "nodes=200", "concurrency": 1,
        "out": str(tmp_path / "out"), "schedule": {"games": 2},
        "engines": [{"name": "tempo", "builtin": "tempo"},
                    {"name": "sf", "cmd": [STOCKFISH], "options": {"Threads": 1}}],
    }
    exp = parse_experiment(data, "test.toml", tmp_path)
    exp.book = load_book_for(exp)
    ours = exp.engines[0]
    assert len(ours.source) == 64 and exp.engines[1].source == ""
    exp.engines[0] = dataclasses.replace(ours, cmd=builtin_command(root))  # the worker's copy
    with local_cluster(DaskSettings(), 1) as cluster:
        with pytest.raises(WorkerEngineError) as err:
            play(exp, dask(DaskSettings(scheduler=cluster.scheduler_address)))
    message = str(err.value)
    assert f"engine 'tempo': the checkout {root} holds other engine sources here" in message
    assert f"against {ours.source[:12]})" in message and "engine 'sf'" not in message
    assert "no game was started" in message
    games, _ = stored(exp.out)
    assert games.empty
