"""`tempo ratings` and `tempo sprt` on PGN files, real results folders and given counts."""

from __future__ import annotations

import chess
import pandas as pd
import pytest

from lab.bench.ratings import write_pgn
from lab.cli import main
from lab.ratings import fit_ratings
from lab.ratings.inputs import read_results
from lab.records import GameRecord
from lab.stats import elo_estimate, sprt
from lab.store import open_store

ROWS = (
    [("A", "B", "1-0")] * 14 + [("A", "B", "1/2-1/2")] * 10 + [("B", "A", "1-0")] * 6
    + [("B", "C", "1-0")] * 9 + [("C", "B", "1/2-1/2")] * 12 + [("C", "A", "0-1")] * 8
    + [("A", "C", "0-1")] * 2 + [("C", "A", "1/2-1/2")] * 5
)


def frame(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["white", "black", "result"])


def test_ratings_table_csv_and_anchor(tmp_path, capsys) -> None:
    pgn = tmp_path / "games.pgn"
    write_pgn(frame(ROWS), pgn)
    out = tmp_path / "ratings.csv"
    assert main(["ratings", str(pgn), "--anchor", "B=2000", "--white", "auto", "--csv", str(out),
                 "--los", "--head-to-head"]) == 0
    text = capsys.readouterr().out
    assert "PLAYER" in text and "White advantage" in text and "LOS" in text
    csv = pd.read_csv(out)
    assert list(csv["player"]) == ["A", "B", "C"]
    assert csv.set_index("player").loc["B", "rating"] == 2000
    api = fit_ratings(frame(ROWS), anchors={"B": 2000}, white="auto")
    assert csv["rating"].to_numpy() == pytest.approx(api.frame["rating"].to_numpy(), abs=0.01)


def test_ratings_anchor_files_and_models(tmp_path, capsys) -> None:
    pgn = tmp_path / "games.pgn"
    write_pgn(frame(ROWS), pgn)
    fixed = tmp_path / "anchors.csv"
    fixed.write_text('"A",2600\n"C",2400\n')
    loose = tmp_path / "loose.csv"
    loose.write_text("# name, rating, sd\nB,2500,30\n")
    assert main(["ratings", str(pgn), "--anchors", str(fixed)]) == 0
    assert "2600.0" in capsys.readouterr().out
    assert main(["ratings", str(pgn), "--loose-anchors", str(loose), "--model", "bayeselo",
                 "--bayeselo-units", "1", "--draw", "30"]) == 0
    assert "drawelo" in capsys.readouterr().out
    bad = tmp_path / "bad.csv"
    bad.write_text("A,2600\nC\n")
    assert main(["ratings", str(pgn), "--anchors", str(bad)]) == 1
    assert "bad.csv: line 2" in capsys.readouterr().err
    assert main(["ratings", str(pgn), "--anchor", "A:2600"]) == 1
    assert "NAME=VALUE" in capsys.readouterr().err
    assert main(["ratings", str(tmp_path / "nope.pgn")]) == 1
    assert "no such results folder or PGN file" in capsys.readouterr().err


def test_ratings_disconnected_pool_exits_3(tmp_path, capsys) -> None:
    pgn = tmp_path / "games.pgn"
    write_pgn(frame(ROWS + [("P", "Q", "1-0"), ("Q", "P", "1/2-1/2")]), pgn)
    assert main(["ratings", str(pgn)]) == 3
    err = capsys.readouterr().err
    assert "not connected" in err and "P, Q" in err
    assert main(["ratings", str(pgn), "--force"]) == 0
    assert "fitted apart" in capsys.readouterr().out


def test_ratings_output_is_that_of_the_frame_path(tmp_path, capsys) -> None:
    """The command reads rows and condenses them without pandas; its text (table, LOS, head to
    head) is the same as a fit of `read_results`' frame, for both models."""
    pgn = tmp_path / "games.pgn"
    write_pgn(frame(ROWS + [("A", "C", "*")]), pgn)
    folder = tmp_path / "run"
    make_results(folder, [("1-0", "0-1"), ("1/2-1/2", "1-0")])
    with open_store(folder) as store:
        store.add_game(GameRecord("x", "X", "A", "1/2-1/2", "normal", "", chess.STARTING_FEN))
    for model in ("ordo", "bayeselo"):
        assert main(["ratings", str(pgn), str(folder), "--model", model, "--los",
                     "--head-to-head"]) == 0
        table = fit_ratings(read_results([pgn, folder]), model)
        assert capsys.readouterr().out == (
            f"{table}\n\nLOS (%, row better than column):\n"
            f"{(100 * table.los).round(1).to_string(na_rep='-')}\n\nHead to head:\n"
            f"{table.head_to_head.round(1).to_string(index=False)}\n")


def make_results(folder, pairs) -> None:
    """A real results folder: game pairs (same opening, colours reversed) of X against Y."""
    with open_store(folder) as store:
        for k, (first, second) in enumerate(pairs):
            for j, (white, black, result) in enumerate(
                (("X", "Y", first), ("Y", "X", second))
            ):
                store.add_game(GameRecord(f"g{k}-{j}", white, black, result, "normal", "",
                                          chess.STARTING_FEN, pair_id=f"p{k}"))


def test_sprt_for_a_results_folder(tmp_path, capsys) -> None:
    # X's pair points: WW (2), WD (1.5), WL (1), DD (1), LD (0.5), WW (2)
    pairs = [("1-0", "0-1"), ("1-0", "1/2-1/2"), ("1-0", "1-0"), ("1/2-1/2", "1/2-1/2"),
             ("0-1", "1/2-1/2"), ("1-0", "0-1")]
    folder = tmp_path / "run"
    make_results(folder, pairs)
    assert main(["ratings", str(folder)]) == 0
    assert "X" in capsys.readouterr().out
    assert main(["sprt", str(folder), "--elo0", "0", "--elo1", "10"]) == 0
    out = capsys.readouterr().out
    counts = [0, 1, 2, 1, 2]
    assert f"Ptnml(0-2): {counts}" in out and "Engine: X" in out
    assert str(sprt(counts, 0, 10)) in out and str(elo_estimate(counts)) in out
    assert main(["sprt", str(folder), "--engine", "Y", "--trinomial"]) == 0
    assert "LDW: [6, 4, 2]" in capsys.readouterr().out  # Y: 6 losses, 4 draws, 2 wins
    assert main(["sprt", str(folder), "--engine", "Z"]) == 1
    assert "no engine 'Z'" in capsys.readouterr().err
    assert main(["sprt", str(tmp_path)]) == 1
    assert "not a results folder" in capsys.readouterr().err


def test_sprt_for_given_counts(capsys) -> None:
    assert main(["sprt", "--penta", "200,1000,3000,1200,400", "--elo0", "-0.5",
                 "--elo1", "2.5"]) == 0
    assert "H1 accepted" in capsys.readouterr().out
    assert main(["sprt", "--wdl", "10,20,30", "--model", "logistic"]) == 0
    assert "LLR" in capsys.readouterr().out
    assert main(["sprt", "--penta", "1,2,3"]) == 1
    assert "expected 5 non-negative integers" in capsys.readouterr().err


def test_sprt_uses_the_experiments_own_settings_unless_overridden(tmp_path, capsys) -> None:
    """A run stopped live under logistic [0, 10] reads back under the same test, not the
    defaults (normalized [0, 2]); the command line overrides a key and says so."""
    pairs = [("1-0", "1/2-1/2")] * 6 + [("1-0", "0-1")] * 4 + [("0-1", "1/2-1/2")]
    folder = tmp_path / "run"
    make_results(folder, pairs)
    stored = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.1, "beta": 0.05, "model": "logistic"}
    with open_store(folder) as store:
        store.bind_experiment("t", {"name": "t"}, {"name": "t", "schedule": "gauntlet",
                                                   "challengers": ["Y"], "sprt": stored})
    counts = [4, 6, 0, 1, 0]  # Y, the experiment's challenger: 4 LL, 6 LD, 1 WD
    assert main(["sprt", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "Engine: Y" in out and f"Ptnml(0-2): {counts}" in out
    assert str(sprt(counts, 0, 10, 0.1, 0.05, "logistic")) in out
    assert "Settings: the experiment's [sprt] (alpha 0.1, beta 0.05)" in out
    assert "SPRT-corrected" in out
    assert main(["sprt", str(folder), "--elo1", "5", "--engine", "X"]) == 0
    out = capsys.readouterr().out
    assert str(sprt([0, 1, 0, 6, 4], 0, 5, 0.1, 0.05, "logistic")) in out
    assert "with elo1 from the command line" in out
    assert main(["sprt", str(folder), "--alpha", "0.6", "--beta", "0.5"]) == 1
    assert "alpha + beta < 1" in capsys.readouterr().err


def test_negative_values_reach_the_commands_own_checks(capsys) -> None:
    assert main(["sprt", "--penta", "-1,2,3,4,5"]) == 1
    assert "expected 5 non-negative integers" in capsys.readouterr().err
    assert main(["sprt", "--penta", "1,2,3,4,5", "--elo0", "-1", "--elo1", "1"]) == 0
    assert "SPRT [-1, 1] nElo" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["ratings", "x.pgn", "--confidence", "0.95"])
    assert "95 means 95 %" in capsys.readouterr().err
