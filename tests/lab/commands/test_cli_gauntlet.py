"""`tempo gauntlet` and `tempo match` on the command line: outputs, exit codes, resume, refusal."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import chess
import chess.pgn
import pytest

from lab.cli import main
from lab.export import MINIMAL_TAGS
from lab.store import open_store

BOOK = Path(__file__).parents[3] / "experiments" / "books" / "openings_8ply.epd"

EXPERIMENT = """
name = "cli"
tc = "nodes=1500"
concurrency = 2

[schedule]
challengers = ["sf1"]
games = 2

[openings]
file = "{book}"

[adjudication]
resign_move_count = 3
resign_score_cp = 500
max_moves = 80

[[engines]]
name = "sf1"
cmd = ["/usr/games/stockfish"]
options = {{ "Skill Level" = {skill}, Threads = 1, Hash = 16 }}

[[engines]]
name = "sf0"
cmd = ["/usr/games/stockfish"]
options = {{ "Skill Level" = 0, Threads = 1, Hash = 16 }}
"""


def write(tmp_path: Path, skill: int = 1, extra: str = "") -> Path:
    path = tmp_path / f"cli{skill}.toml"
    path.write_text(EXPERIMENT.format(book=BOOK, skill=skill) + extra)
    return path


def pgn_count(path: Path) -> int:
    with open(path) as handle:
        return sum(1 for _ in iter(lambda: chess.pgn.read_game(handle), None))


def test_gauntlet_runs_resumes_and_refuses_another_experiment(tmp_path, capsys):
    out = tmp_path / "out"
    path = write(tmp_path)
    assert main(["gauntlet", str(path), "--out", str(out), "--plain"]) == 0
    captured = capsys.readouterr()
    assert "cli: 2 games" in captured.err and "2/2 games" in captured.err
    assert "RATING" in captured.out and f"results: {out}" in captured.out
    for name in ("tempo.sqlite", "games.pgn", "moves.csv", "ratings.csv", "time_usage.png"):
        assert (out / name).exists(), name

    # the same experiment with more games resumes: the two games are kept, two are added
    with open_store(out) as store:
        first_two = set(store.finished_ids())
    assert main(["gauntlet", str(path), "--out", str(out), "--games", "4", "--plain"]) == 0
    assert "resuming with 2 done" in capsys.readouterr().err
    with open_store(out) as store:
        assert first_two < store.finished_ids() and store.game_count() == 4
    assert pgn_count(out / "games.pgn") == 4
    assert main(["gauntlet", str(path), "--out", str(out), "--games", "4", "--plain"]) == 0
    assert "all 4 already played: nothing to do" in capsys.readouterr().err

    # another experiment (a different option) into the same folder is refused, nothing changes
    other = write(tmp_path, skill=3)
    assert main(["gauntlet", str(other), "--out", str(out), "--plain"]) == 2
    err = capsys.readouterr().err
    assert "holds another experiment" in err and "options.Skill Level: 1 -> 3" in err
    with open_store(out) as store:
        assert store.game_count() == 4
    assert main(["gauntlet", str(other), "--out", str(out), "--overwrite", "--plain"]) == 0
    with open_store(out) as store:
        assert store.game_count() == 2
    assert pgn_count(out / "games.pgn") == 2


def test_invalid_experiment_writes_nothing(tmp_path, capsys):
    out = tmp_path / "never"
    path = write(tmp_path, extra='\n[sprt]\nelo0 = 0\nelo1 = 5\nalpha = 1.5\n')
    assert main(["gauntlet", str(path), "--out", str(out)]) == 2
    assert "alpha and beta" in capsys.readouterr().err
    bad_tc = write(tmp_path)
    assert main(["gauntlet", str(bad_tc), "--out", str(out), "--tc", "fast"]) == 2
    assert "bad time control" in capsys.readouterr().err
    assert not out.exists()


def test_match_quick_form(tmp_path, capsys):
    out = tmp_path / "m"
    code = main(["match", "stockfish:Skill Level=1", "stockfish:Skill Level=0", "--tc",
                 "nodes=1000", "--games", "2", "--book", str(BOOK), "--out", str(out),
                 "--concurrency", "1", "--plain"])
    assert code == 0
    err = capsys.readouterr().err
    # default names are folder-friendly: no spaces
    assert "match-stockfish-Skill_Level=1-vs-stockfish-Skill_Level=0: 2 games" in err
    with open_store(out) as store:
        games = store.games()
        engines = store.engines()
    assert len(games) == 2 and set(games["white"]) == set(engines["name"])
    assert pgn_count(out / "games.pgn") == 2


@pytest.mark.parametrize(("words", "message"), [
    (["--concurrency", "0"], "argument --concurrency: must be at least 1, got 0"),
    (["--games", "0"], "argument --games: must be at least 1, got 0"),
    (["--games", "x"], "argument --games: not a whole number: 'x'"),
])
def test_counts_on_the_command_line_are_checked_and_named(capsys, words, message):
    with pytest.raises(SystemExit):
        main(["match", "stockfish", "stockfish", *words])
    assert message in capsys.readouterr().err


def test_an_odd_number_of_paired_games_names_the_option(tmp_path, capsys):
    assert main(["match", "stockfish", "stockfish", "--games", "3",
                 "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert "--games 3: must be even with paired openings" in err and "top level" not in err


def test_match_with_a_missing_engine_fails_cleanly(tmp_path, capsys):
    out = tmp_path / "m"
    assert main(["match", "stockfish", "no-such-engine-here", "--out", str(out)]) == 2
    assert "no-such-engine-here" in capsys.readouterr().err
    assert not out.exists()


def test_match_with_an_xboard_engine(tmp_path, capfd):
    if not Path("/usr/games/phalanx").exists():
        pytest.skip("phalanx is not installed")
    out = tmp_path / "x"
    code = main(["match", "xboard=phalanx", "stockfish:Skill Level=0", "--tc", "1+0.02",
                 "--games", "2", "--out", str(out), "--plain"])
    assert code == 0
    err = capfd.readouterr().err  # file-descriptor level: the worker processes' output too
    assert "2/2 games" in err and "Unexpected engine output" not in err
    with open_store(out) as store:
        games = store.games()
        engines = store.engines()
    assert len(games) == 2 and not games["termination"].isin(
        ["abandoned", "stalled connection", "rules infraction"]).any()
    assert engines.set_index("name").loc["phalanx", "protocol"] == "xboard"
    assert pgn_count(out / "games.pgn") == 2


def test_match_from_an_engines_file_with_wait_and_game_files(tmp_path, capsys):
    """`--engines`, `--each`, `--wait`, `--pgn-out FILE min fi` and `--epd-out` with real engines;
    a resumed run appends only its new games to the user's files."""
    engines = tmp_path / "engines.toml"
    engines.write_text('[sf1]\ncmd = ["/usr/games/stockfish"]\noptions = { "Skill Level" = 1 }\n'
                       '[sf0]\ncmd = ["/usr/games/stockfish"]\noptions = { "Skill Level" = 0 }\n')
    out, pgn, epd = tmp_path / "m", tmp_path / "mine.pgn", tmp_path / "final.epd"
    words = ["match", "sf1", "sf0", "--engines", str(engines), "--each", "tc=nodes=1000",
             "--each", "options.Threads=1", "--book", str(BOOK), "--out", str(out),
             "--concurrency", "1", "--plain", "--wait", "500", "--epd-out", str(epd),
             "--pgn-out", str(pgn), "min", "fi"]
    assert main([*words, "--games", "2"]) == 0
    assert main([*words, "--games", "4"]) == 0
    capsys.readouterr()
    with open_store(out) as store:
        games = store.games()
        engine_rows = store.engines()
    assert sorted(engine_rows["name"]) == ["sf0", "sf1"]
    assert set(games["white_tc"]) == {"nodes=1000"}
    starts = [datetime.fromisoformat(t) for t in games["started_at"]]
    ends = [datetime.fromisoformat(t) for t in games["finished_at"]]
    assert all((start - end).total_seconds() >= 0.5 for start, end in zip(starts[1:], ends))
    final = dict(zip(games["game_id"], games["final_fen"], strict=True))
    with open(pgn, encoding="utf-8") as handle:
        written = [chess.pgn.read_game(handle) for _ in range(5)]
    assert written[4] is None and len(final) == 4
    for game in written[:4]:
        assert set(game.headers) <= set(MINIMAL_TAGS)
        board = game.board()
        for node in game.mainline():
            board.push(node.move)
            assert node.comment == ("" if node.next() else f"FEN: {board.fen()}")
        assert board.fen() in final.values()
    lines = epd.read_text().splitlines()
    assert lines == [chess.Board(final[gid]).epd() for gid in games["game_id"]]
