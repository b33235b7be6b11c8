"""Experiment files: what loads, and a clear error (file, key, engine, line) for each bad input.

The engine checks start real processes: Stockfish, and the fakes in tests/lab/fakes (a UCI engine
that never finishes its handshake, an XBoard engine without `setboard`).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lab.experiment import (
    LAB_ROOT,
    ExperimentError,
    Overrides,
    builtin_command,
    is_builtin_command,
)
from lab.experiment_file import ST_MARGIN_MS, load_experiment
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
    text = BASE.replace('name = "b"', 'name = "b"\nponder = true')
    pondering = load_experiment(write(tmp_path, text, "ponder.toml"))
    assert pondering.engine("b").ponder and not first.engine("b").ponder
    assert pondering.identity() != first.identity()
    assert all("ponder" not in engine for engine in first.identity()["engines"])
    pinned = load_experiment(write(tmp_path, BASE.replace('name = "b"', 'name = "b"\ncpus = [0]'),
                                   "pinned.toml"))
    assert pinned.engine("b").cpus == (0,) and first.engine("b").cpus == ()
    assert pinned.identity() == first.identity()  # where it runs, not what it plays
    assert all("cpus" not in engine and "source" not in engine
               for engine in pinned.identity()["engines"])
    restarting = load_experiment(write(tmp_path, BASE, "restart.toml"),
                                 Overrides(each=["restart=true"]))
    assert [spec.restart for spec in restarting.engines] == [True, True]
    assert not first.engine("b").restart and restarting.identity() == first.identity()


def test_ponder_for_every_engine_from_each_and_the_command_line(tmp_path):
    shared = load_experiment(write(tmp_path, BASE.replace("[schedule]", "[each]\nponder = true\n\n"
                                                          "[schedule]")))
    assert [spec.ponder for spec in shared.engines] == [True, True]
    words = load_experiment(write(tmp_path, BASE, "words.toml"), Overrides(each=["ponder=true"]))
    assert [spec.ponder for spec in words.engines] == [True, True]
    with pytest.raises(ExperimentError, match="key 'ponder' must be bool, got 'yes'"):
        load_experiment(write(tmp_path, BASE, "bad.toml"), Overrides(each=["ponder=yes"]))


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
        (('name = "b"', 'name = "b"\ncpus = [0, 0]'),
         "key 'cpus' must list distinct CPU numbers >= 0, got [0, 0]"),
        (('name = "b"', 'name = "b"\ncpus = [-1]'), "got [-1]"),
    ],
)
def test_bad_values_are_explained(tmp_path, change, expected):
    assert change[0] in BASE
    message = error_of(write(tmp_path, BASE.replace(*change)))
    assert expected in message


@pytest.mark.parametrize(("tc", "own", "overhead", "refused"), [
    ("10+0.1", "", 300, True),      # 300 x 52 = 15.6 s kept back of 10 + 0.1 x 49 = 14.9 s
    ("10+0.1", "", 280, False),     # 14.56 s of 14.9 s: little left, but not nothing
    ("10+0.1", "", 10, False),      # Stockfish's default
    ("60+0.6", "", 300, False),
    ("st=1", "", 5000, False),      # a per-move limit plans nothing
    ("60+0.6", 'tc = "2+0.02"', 100, True),   # b's own control: 5.2 s of 2.98 s
    ("40/10", "", 300, True),       # 40 moves to go: 12.6 s of 10 s
])
def test_a_move_overhead_that_keeps_back_the_whole_clock_is_refused(tmp_path, tc, own, overhead,
                                                                     refused):
    """Stockfish plans 50 moves and keeps the overhead back for each (and 2 more): at 10+0.1 a
    300 ms Move Overhead leaves it nothing, and it answered at depth 1 (two calibration files of
    ours did that for every Stockfish anchor)."""
    text = with_b(f'cmd = ["{STOCKFISH}"]\n{own}\noptions = {{ "move overhead" = {overhead} }}')
    text = text.replace('tc = "10+0.1"', f'tc = "{tc}"')
    path = write(tmp_path, text)
    if not refused:
        assert load_experiment(path).engines[1].options == {"move overhead": overhead}
        return
    message = error_of(path)
    assert str(path) in message and "engine 'b': Move Overhead" in message
    assert "would move without searching" in message


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


def test_quick_match_name_key_names_an_engine_as_cutechess_does():
    exp = quick_experiment(["tempo:name=L1400,UCI_LimitStrength=true,UCI_Elo=1400",
                            "stockfish:Skill Level=2,name=sf2"], "1+0.01", 2)
    assert [e.name for e in exp.engines] == ["L1400", "sf2"]
    assert exp.name == "match-L1400-vs-sf2" and exp.challengers == ["L1400"]
    assert exp.engines[0].options["UCI_Elo"] == 1400 and "name" not in exp.engines[0].options
    assert exp.engines[1].options == {"Skill Level": 2}
    with pytest.raises(ExperimentError, match=r"engine 'tempo:name=a/b': name='a/b' must be"):
        quick_experiment(["tempo:name=a/b", "stockfish"], "1+0.01", 2)
    with pytest.raises(ExperimentError, match="names must be unique: x used twice"):
        quick_experiment(["tempo:name=x", "stockfish:name=x"], "1+0.01", 2)


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


def decoy_checkout(folder: Path) -> Path:
    """A folder whose `engine` package (launcher and UCI loop) only says "decoy"."""
    package = folder / "engine"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "launcher.py").write_text("def main():\n    print('id name decoy')\n    return 0\n")
    (package / "uci.py").write_text("def main():\n    print('id name decoy')\n    return 0\n")
    return folder


def test_our_engine_is_this_checkouts_whatever_the_working_directory(tmp_path):
    """`builtin = "tempo"` runs the engine of the checkout the lab runs from: a harness started
    in another checkout (or with one virtualenv for several worktrees) once played that
    checkout's engine as "the working tree", and an SPRT measured the wrong change."""
    decoy = decoy_checkout(tmp_path / "other")
    text = BASE.replace(f'cmd = ["{STOCKFISH}"]\noptions', 'builtin = "tempo"\noptions', 1)
    spec = load_experiment(write(tmp_path, text)).engines[0]
    assert spec.cmd == builtin_command(LAB_ROOT)
    answer = subprocess.run(spec.cmd, input="uci\nquit\n", capture_output=True, text=True,
                            cwd=decoy, timeout=60)
    assert "id name Tempo" in answer.stdout and "decoy" not in answer.stdout, answer.stdout
    # another checkout's launcher is still our engine in the experiment's identity
    assert is_builtin_command(builtin_command(decoy)) and not is_builtin_command([STOCKFISH])


@pytest.mark.parametrize("overrides", [Overrides(games=0), Overrides(rounds=-1),
                                       Overrides(concurrency=-2)])
def test_command_line_overrides_are_checked_too(tmp_path, overrides):
    with pytest.raises(ExperimentError, match="must be a positive integer"):
        load_experiment(write(tmp_path, BASE), overrides)


def test_margins_from_the_file_the_engines_and_the_command_line(tmp_path) -> None:
    assert quick_experiment([STOCKFISH, STOCKFISH], "10+0.1", 2).margin_ms == 0
    fixed = quick_experiment([STOCKFISH, STOCKFISH], "st=0.1", 2)
    assert fixed.margin_ms == ST_MARGIN_MS > 0
    assert quick_experiment([STOCKFISH, STOCKFISH], "st=0.1", 2,
                            overrides=Overrides(margin_ms=0)).margin_ms == 0
    path = tmp_path / "e.toml"
    path.write_text(BASE.replace('name = "b"', 'name = "b"\nmargin_ms = 40\ntc = "st=0.5"')
                    .replace('name = "a"', 'name = "a"\nmargin_ms = 7'))
    exp = load_experiment(path)
    assert exp.margin_ms == 0 and [e.margin_ms for e in exp.engines] == [7, 40]
    exp = load_experiment(path, Overrides(margin_ms=25))
    assert exp.margin_ms == 25 and [e.margin_ms for e in exp.engines] == [None, None]
    path.write_text(BASE.replace('name = "b"', 'name = "b"\ntc = "st=0.5"'))
    assert [e.margin_ms for e in load_experiment(path).engines] == [None, ST_MARGIN_MS]
    path.write_text(BASE.replace('name = "b"', 'name = "b"\nmargin_ms = -1'))
    with pytest.raises(ExperimentError, match=r"\[\[engines\]\] #2: key 'margin_ms' must not"):
        load_experiment(path)


def test_stockfish_at_st_keeps_its_time_with_the_default_margin(stockfish) -> None:
    """The default `st=` margin is enough for Stockfish here (with margin 0 it forfeits)."""
    from lab.game import play_game
    from lab.records import Adjudication, GameTask

    exp = quick_experiment([STOCKFISH, f"{STOCKFISH}:Skill Level=10"], "st=0.1", 2)
    game = GameTask("g1", 1, stockfish("sf"), stockfish("sf10", **{"Skill Level": 10}),
                    exp.tc, exp.book[0].fen, list(exp.book[0].moves),
                    Adjudication(max_moves=30), margin_ms=exp.margin_ms)
    record = play_game(game)
    # 30 moves each (adjudicated) or a mate before them: either way nobody lost on time.
    assert record.termination in ("adjudication", "normal"), record.reason
    assert len(record.moves) >= 10
    assert max(m.elapsed_ms for m in record.moves) < 100 + ST_MARGIN_MS


ENGINES_FILE = f"""
[sf]
cmd = ["{STOCKFISH}"]
options = {{ Hash = 16, "Skill Level" = 3 }}

[ours]
builtin = "tempo"
options = {{ TimeManager = "fraction" }}
"""


def test_an_engines_file_with_each_settings(tmp_path) -> None:
    (tmp_path / "engines.toml").write_text(ENGINES_FILE)
    path = write(tmp_path, """
name = "t"
tc = "10+0.1"
engines_file = "engines.toml"
[each]
tc = "5+0.05"
options = { Threads = 1 }
[[engines]]
conf = "sf"
options = { "Skill Level" = 5 }
[[engines]]
conf = "ours"
name = "fraction"
tc = "3+0.03"
""")
    sf, ours = load_experiment(path).engines
    assert (sf.name, sf.cmd, str(sf.tc)) == ("sf", [STOCKFISH], "5+0.05")
    assert sf.options == {"Hash": 16, "Skill Level": 5, "Threads": 1}
    assert (ours.name, str(ours.tc)) == ("fraction", "3+0.03")
    assert ours.options == {"TimeManager": "fraction", "Threads": 1}
    cli = load_experiment(path, Overrides(each=["tc=st=0.2", "options.Threads=2"]))
    assert [(str(e.tc), e.options["Threads"]) for e in cli.engines] == [("st=0.2", 2)] * 2
    assert [e.margin_ms for e in cli.engines] == [ST_MARGIN_MS] * 2


def test_tempo_match_takes_engines_by_name(tmp_path, stockfish) -> None:
    engines = tmp_path / "engines.toml"
    engines.write_text(ENGINES_FILE)
    exp = quick_experiment(["sf:Skill Level=1", "ours"], "10+0.1", 2,
                           overrides=Overrides(engines_file=str(engines),
                                               each=["options.Hash=8"]))
    sf, ours = exp.engines
    assert sf.name == "sf-Skill_Level=1" and sf.options == {"Hash": 8, "Skill Level": 1}
    assert ours.cmd[0] == sys.executable and ours.options["Hash"] == 8
    probe_engines(exp)


@pytest.mark.parametrize("text, each, message", [
    ('[[engines]]\nconf = "nope"\n[[engines]]\nconf = "sf"', [],
     r"e.toml: \[\[engines\]\] #1: key 'conf': no engine 'nope' in .*engines.toml "
     r"\(it has: sf, ours\)"),
    ('[[engines]]\nconf = "sf"\ntscale = 1\n[[engines]]\nconf = "ours"', [],
     r"e.toml: \[\[engines\]\] #1 \(conf 'sf' from .*engines.toml\): unknown key 'tscale'"),
    ('[[engines]]\nconf = "sf"\nponder = 1\n[[engines]]\nconf = "ours"', [],
     r"#1 \(conf 'sf' .*key 'ponder' must be bool, got 1"),
    ('[[engines]]\nconf = "sf"\n[[engines]]\nconf = "ours"', ["Hash"],
     r"--each 'Hash': expected KEY=VALUE"),
    ('[[engines]]\nconf = "sf"\n[[engines]]\nconf = "ours"', ["protocol=uxi"],
     r"#1 \(conf 'sf' .*key 'protocol' must be 'uci' or 'xboard', got 'uxi'"),
])
def test_engines_file_errors_name_the_file_and_the_key(tmp_path, text, each, message) -> None:
    (tmp_path / "engines.toml").write_text(ENGINES_FILE)
    path = write(tmp_path, f'name = "t"\ntc = "1+0"\nengines_file = "engines.toml"\n{text}\n',
                 "e.toml")
    with pytest.raises(ExperimentError, match=message):
        load_experiment(path, Overrides(each=each))


def test_a_broken_engines_file_is_named(tmp_path) -> None:
    (tmp_path / "engines.toml").write_text('sf = "stockfish"\n')
    path = write(tmp_path, 'name = "t"\ntc = "1+0"\nengines_file = "engines.toml"\n'
                 '[[engines]]\nconf = "sf"\n', "e.toml")
    with pytest.raises(ExperimentError, match=r"engines.toml: key 'sf' must be a table \[sf\]"):
        load_experiment(path)
    (tmp_path / "engines.toml").write_text('[sf\n')
    with pytest.raises(ExperimentError, match=r"engines.toml: not valid TOML"):
        load_experiment(path)
    path.write_text('name = "t"\ntc = "1+0"\n[[engines]]\nconf = "sf"\n')
    with pytest.raises(ExperimentError, match=r"key 'conf' names an engine of an engines file"):
        load_experiment(path)


def test_output_files_and_wait_are_checked_and_named(tmp_path) -> None:
    path = write(tmp_path, BASE.replace('concurrency = 2', 'concurrency = 2\nwait_ms = 250\n'
                                        '[output]\npgn = "out.pgn"\npgn_final_fen = true\n'
                                        'epd = "final.epd"'))
    exp = load_experiment(path)
    assert exp.wait_ms == 250 and "wait_ms" not in exp.identity()
    assert exp.output.pgn == str(tmp_path / "out.pgn") and exp.output.epd == str(
        tmp_path / "final.epd")
    assert exp.output.pgn_final_fen and not exp.output.pgn_minimal
    cli = load_experiment(path, Overrides(wait_ms=0, pgn_out=[str(tmp_path / "b.pgn"), "min"]))
    assert cli.wait_ms == 0 and (cli.output.pgn_minimal, cli.output.pgn_final_fen) == (True, False)
    for overrides, message in [
        (Overrides(pgn_out=["x.pgn", "mini"]), r"--pgn-out x.pgn mini: unknown 'mini'"),
        (Overrides(epd_out=str(tmp_path / "no" / "f.epd")),
         r"--epd-out: .*no/f.epd is in a folder that does not exist"),
        (Overrides(pgn_out=[str(tmp_path)]), r"--pgn-out: .* is a folder"),
    ]:
        with pytest.raises(ExperimentError, match=message):
            load_experiment(path, overrides)
    path.write_text(BASE.replace('concurrency = 2', 'concurrency = 2\n[output]\npgn = "d/x.pgn"'))
    with pytest.raises(ExperimentError, match=r"\[output\]: key 'pgn': .*d/x.pgn is in a folder"):
        load_experiment(path)
    path.write_text(BASE.replace('concurrency = 2', 'concurrency = 2\nwait_ms = -5'))
    with pytest.raises(ExperimentError, match=r"key 'wait_ms' must not be negative, got -5"):
        load_experiment(path)
