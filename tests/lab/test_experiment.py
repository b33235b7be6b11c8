"""Experiment files: what loads, and a clear error (file, key, engine, line) for each bad input.

The engine checks start real processes: Stockfish, and the fakes in tests/lab/fakes (a UCI engine
that never finishes its handshake, an XBoard engine without `setboard`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from lab.experiment import ExperimentError, Overrides
from lab.experiment_file import load_experiment
from lab.quick_match import quick_experiment
from lab.runner import probe_engines
from timecontrol.control import parse_time_control

STOCKFISH = "/usr/games/stockfish"
FAKES = Path(__file__).parent / "fakes"
BOOK = Path(__file__).parents[2] / "experiments" / "books" / "openings_8ply.epd"

BASE = f"""
name = "t"
tc = "10+0.1"
concurrency = 2

[schedule]
type = "gauntlet"
challengers = ["a"]
rounds = 2

[openings]
file = "{BOOK}"
order = "random"
seed = 7

[[engines]]
name = "a"
cmd = ["{STOCKFISH}"]
options = {{ "Skill Level" = 1 }}

[[engines]]
name = "b"
cmd = ["{STOCKFISH}"]
"""


def with_b(lines: str) -> str:
    """BASE with engine b's command replaced by `lines`."""
    old = f'name = "b"\ncmd = ["{STOCKFISH}"]\n'
    assert old in BASE
    return BASE.replace(old, f'name = "b"\n{lines}\n')


def write(tmp_path: Path, text: str, name: str = "exp.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def error_of(path: Path, probe: bool = False) -> str:
    with pytest.raises(ExperimentError) as info:
        experiment = load_experiment(path)
        if probe:
            probe_engines(experiment)
    return str(info.value)


def test_a_good_file_loads_with_defaults_and_resolved_paths(tmp_path):
    exp = load_experiment(write(tmp_path, BASE))
    assert [e.name for e in exp.engines] == ["a", "b"]
    assert exp.tc == parse_time_control("10+0.1") and exp.concurrency == 2 and exp.rounds == 2
    assert exp.challengers == ["a"] and exp.openings.paired
    assert exp.out == Path("results/t")
    assert len(exp.book) == 400
    assert exp.engine("a").options == {"Skill Level": 1}


def test_builtin_engine_resolves_to_the_launcher_and_interpreter_env(tmp_path):
    text = BASE.replace(f'cmd = ["{STOCKFISH}"]\noptions', 'builtin = "tempo"\n'
                        'interpreter = "cpython"\noptions', 1)
    exp = load_experiment(write(tmp_path, text))
    spec = exp.engine("a")
    assert spec.cmd[0] == sys.executable and "engine.launcher" in " ".join(spec.cmd)
    assert spec.env == {"TEMPO_ENGINE_PYTHON": "cpython"}


def test_overrides_replace_games_concurrency_tc_and_out(tmp_path):
    text = BASE.replace('name = "b"', 'name = "b"\ntc = "5+0.05"')
    exp = load_experiment(write(tmp_path, text),
                          Overrides(games=6, concurrency=1, tc="2+0.02", out="x/y"))
    assert exp.games == 6 and exp.rounds is None
    assert exp.concurrency == 1 and exp.tc == parse_time_control("2+0.02")
    assert exp.engine("b").tc is None
    assert exp.out == Path("x/y")


def test_identity_ignores_games_and_concurrency_but_not_engines(tmp_path):
    path = write(tmp_path, BASE)
    first = load_experiment(path)
    more = load_experiment(path, Overrides(games=40, concurrency=1))
    assert first.identity() == more.identity()
    other = load_experiment(write(tmp_path, BASE.replace("Skill Level\" = 1", "Skill Level\" = 2"),
                                  "other.toml"))
    assert other.identity() != first.identity()


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (("concurrency = 2", "concurrency = 2\nspeed = 3"), "top level: unknown key 'speed'"),
        (('name = "b"', 'name = "b"\nprotocl = "uci"'), "[[engines]] #2: unknown key 'protocl'"),
        (("seed = 7", "seed = 7\nply = 8"), "[openings]: unknown key 'ply'"),
        (("rounds = 2", "rounds = 2\nround = 3"), "[schedule]: unknown key 'round'"),
    ],
)
def test_unknown_keys_are_named_with_the_file(tmp_path, change, expected):
    path = write(tmp_path, BASE.replace(*change))
    message = error_of(path)
    assert str(path) in message and expected in message


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (('tc = "10+0.1"', 'tc = "10+x"'), "bad time control"),
        (('name = "b"', 'name = "b"\ntc = "40/"'), "bad time control"),
        (("rounds = 2", "rounds = 2\ngames = 4"), "give 'rounds' or 'games', not both"),
        (("rounds = 2", "games = 5"), "must be even with paired openings"),
        (('challengers = ["a"]', 'challengers = ["z"]'), "challengers ['z'] are not engines"),
        (('type = "gauntlet"', 'type = "swiss"'), "type must be one of"),
        (('name = "b"', 'name = "a"'), "engine names must be unique: a used twice"),
        (("concurrency = 2", "concurrency = 0"), "'concurrency' must be a positive integer"),
        (("concurrency = 2", 'concurrency = "two"'), "'concurrency' must be int"),
        (("[[engines]]\nname = \"b\"", "[[engines]]\nname = \"b\"\nbuiltin = \"tempo\""),
         "exactly one of 'builtin'"),
        (('order = "random"', 'order = "shuffled"'), "'order' must be 'sequential' or 'random'"),
        (("[[engines]]\nname = \"a\"", "[sprt]\nelo0 = 5\nelo1 = 0\n\n[[engines]]\nname = \"a\""),
         "elo0 must be below elo1"),
    ],
)
def test_bad_values_are_explained(tmp_path, change, expected):
    assert change[0] in BASE
    message = error_of(write(tmp_path, BASE.replace(*change)))
    assert expected in message


def test_invalid_toml_names_file_and_line(tmp_path):
    path = write(tmp_path, BASE.replace('tc = "10+0.1"', "tc = 10+0.1"))
    message = error_of(path)
    assert str(path) in message and "not valid TOML" in message and "line 3" in message


def test_malformed_opening_file_names_file_and_line(tmp_path):
    book = tmp_path / "bad.epd"
    lines = BOOK.read_text().splitlines()[:5]
    lines[3] = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq -"
    book.write_text("\n".join(lines) + "\n")
    message = error_of(write(tmp_path, BASE.replace(str(BOOK), str(book))))
    assert f"{book}:4" in message and "not a valid EPD position" in message


def test_malformed_pgn_book_names_file_and_line(tmp_path):
    book = tmp_path / "bad.pgn"
    book.write_text('[Event "ok"]\n\n1. e4 e5 2. Nf3 *\n\n[Event "bad"]\n\n1. e4 e5 2. Ke3 *\n')
    message = error_of(write(tmp_path, BASE.replace(str(BOOK), str(book))))
    assert f"{book}:5" in message and "Ke3" in message


def test_missing_opening_file(tmp_path):
    message = error_of(write(tmp_path, BASE.replace(str(BOOK), "nowhere.epd")))
    assert "nowhere.epd: opening book not found" in message


def test_missing_engine_binary_is_named(tmp_path):
    path = write(tmp_path, with_b('cmd = ["./no-such-engine"]'))
    message = error_of(path, probe=True)
    assert "'b'" in message and "no-such-engine" in message and "not found" in message


def test_unknown_engine_option_is_named(tmp_path):
    path = write(tmp_path, BASE.replace('"Skill Level" = 1', '"Skil Level" = 1'))
    message = error_of(path, probe=True)
    assert "'a'" in message and "no option 'Skil Level'" in message


def test_engine_failing_the_handshake(tmp_path):
    text = with_b(f'cmd = ["{sys.executable}", "{FAKES / "fake_uci.py"}", "--fault=nouciok"]\n'
                  "startup_timeout = 1.0")
    message = error_of(write(tmp_path, text), probe=True)
    assert "'b'" in message and "uci handshake timed out" in message


def test_an_engine_command_keeps_its_symlinked_path(tmp_path):
    """A virtualenv's python is a link to the base interpreter; resolved, it loses the venv's
    packages (python-chess here). The command keeps the path given, and the engine runs from it."""
    venv_python = Path(sys.executable)
    assert venv_python.is_symlink(), "the suite runs in the project's virtualenv"
    text = with_b(f'cmd = ["{venv_python}", "{FAKES / "fake_uci.py"}"]')
    experiment = load_experiment(write(tmp_path, text))
    assert experiment.engine("b").cmd[0] == str(venv_python)
    probe_engines(experiment)


def test_xboard_engine_without_setboard_is_rejected(tmp_path):
    text = with_b(f'cmd = ["{sys.executable}", "{FAKES / "fake_xboard.py"}"]\n'
                  'protocol = "xboard"')
    message = error_of(write(tmp_path, text), probe=True)
    assert "'b'" in message and "setboard" in message


def test_probe_records_identity_of_real_engines(tmp_path):
    identities = probe_engines(load_experiment(write(tmp_path, BASE)))
    assert identities["a"].name.startswith("Stockfish")
    assert identities["a"].path == str(Path(STOCKFISH).resolve())


def test_phalanx_xboard_engine_passes_the_probe(tmp_path):
    if not Path("/usr/games/phalanx").exists():
        pytest.skip("phalanx is not installed")
    text = with_b('cmd = ["/usr/games/phalanx"]\nprotocol = "xboard"')
    identities = probe_engines(load_experiment(write(tmp_path, text)))
    assert identities["b"].protocol == "xboard"


def test_quick_match_words():
    exp = quick_experiment(["stockfish:Skill Level=2", "stockfish"], "1+0.01", 4)
    assert [e.name for e in exp.engines] == ["stockfish-Skill_Level=2", "stockfish"]
    assert exp.name == "match-stockfish-Skill_Level=2-vs-stockfish"  # no spaces: a folder name
    assert exp.engines[0].cmd == [STOCKFISH] and exp.engines[0].options == {"Skill Level": 2}
    assert exp.games == 4 and exp.challengers == [exp.engines[0].name]
    same = quick_experiment(["tempo", "tempo"], "1+0.01", 2)
    assert [e.name for e in same.engines] == ["tempo", "tempo_2"]
    with pytest.raises(ExperimentError, match="must be even"):
        quick_experiment(["stockfish", "stockfish"], "1+0.01", 3)


def test_quick_match_uses_the_shipped_book_by_default():
    exp = quick_experiment(["stockfish", "stockfish"], "1+0.01", 2)
    assert Path(exp.openings.file) == BOOK.resolve() and exp.openings.order == "random"
    assert len(exp.book) == 400


def test_identity_survives_a_moved_book_and_names_our_engine_not_its_interpreter(tmp_path):
    moved = tmp_path / "elsewhere" / BOOK.name
    moved.parent.mkdir()
    moved.write_bytes(BOOK.read_bytes())
    text = BASE.replace(f'cmd = ["{STOCKFISH}"]\noptions', 'builtin = "tempo"\noptions', 1)
    here = load_experiment(write(tmp_path, text))
    there = load_experiment(write(tmp_path, text.replace(str(BOOK), str(moved)), "moved.toml"))
    assert here.identity() == there.identity()
    assert here.identity()["engines"][0]["cmd"] == ["builtin:tempo"]
    moved.write_text("\n".join(BOOK.read_text().splitlines()[:10]) + "\n")
    changed = load_experiment(write(tmp_path, text.replace(str(BOOK), str(moved)), "c.toml"))
    assert changed.identity() != here.identity()


@pytest.mark.parametrize("overrides", [Overrides(games=0), Overrides(rounds=-1),
                                       Overrides(concurrency=-2)])
def test_command_line_overrides_are_checked_too(tmp_path, overrides):
    with pytest.raises(ExperimentError, match="must be a positive integer"):
        load_experiment(write(tmp_path, BASE), overrides)
