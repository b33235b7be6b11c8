"""`tempo tune`: Texel fitting on synthetic data, position sampling, and the whole command on a
results folder made by real games of our engine (nodes-limited, so they take seconds)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import chess
import numpy as np
import pytest
import scipy.sparse

from lab.cli import main
from lab.experiment import BUILTIN_ENGINES
from lab.store import read_store
from lab.tune.features import FeatureSet, engine_features
from lab.tune.fit import fit_scale, fit_weights, holdout_mask, sigmoid
from lab.tune.positions import Sample, sample_positions
from lab.tune.weights_file import weight_table

BOOK = Path(__file__).parents[2] / "experiments" / "books" / "openings_8ply.epd"
SELF_PLAY = f"""
name = "selfplay"
tc = "nodes=150"
concurrency = 1
[schedule]
challengers = ["a"]
games = 4
[openings]
file = "{BOOK}"
paired = false
[adjudication]
max_moves = 30
[[engines]]
name = "a"
builtin = "tempo"
[[engines]]
name = "b"
builtin = "tempo"
"""


def synthetic(n: int, truth: np.ndarray, k: float, seed: int = 0) -> FeatureSet:
    """Positions whose results (win or loss) are drawn from known weights and scale."""
    rng = np.random.default_rng(seed)
    dense = rng.integers(-3, 4, size=(n, len(truth))).astype(float)
    dense[:, 0] = rng.integers(-2, 3, size=n)  # a material-like column
    constant = rng.normal(0.0, 20.0, size=n)
    values = constant + dense @ truth
    results = (rng.random(n) < sigmoid(values, k)).astype(float)
    keys = ["material.pawn.mg", "a.mg", "a.eg", "b.mg", "b.eg"][: len(truth)]
    return FeatureSet(keys, truth.copy(), scipy.sparse.csr_matrix(dense), constant,
                      values, results, 0)


def test_the_scale_is_recovered_from_evaluations_and_results():
    truth = np.array([100.0, 30.0, -20.0, 15.0, 50.0])
    data = synthetic(40000, truth, k=1.3)
    assert fit_scale(data.values(truth), data.results) == pytest.approx(1.3, rel=0.05)


def test_the_weights_are_recovered_from_results_alone():
    """K fitted on the true weights, then the weights fitted from a wrong start."""
    truth = np.array([100.0, 30.0, -20.0, 15.0, 50.0])
    data = synthetic(40000, truth, k=1.3, seed=1)
    k = fit_scale(data.values(truth), data.results)
    data.weights = np.array([60.0, 0.0, 0.0, 40.0, 0.0])
    fit = fit_weights(data, k=k, min_positions=1)
    assert fit.error_after < fit.error_before
    assert fit.weights == pytest.approx(truth, abs=6.0)
    assert len(fit.tuned) == len(truth)


def test_rarely_used_weights_stay_put():
    truth = np.array([100.0, 30.0, -20.0])
    data = synthetic(2000, truth, k=1.0, seed=2)
    matrix = data.matrix.tolil()
    matrix[5:, 2] = 0  # "a.eg" appears in 5 positions only
    data.matrix = matrix.tocsr()
    fit = fit_weights(data, min_positions=20)
    assert "a.eg" not in fit.tuned and fit.weights[2] == truth[2]


def test_only_the_weights_named_are_tuned():
    truth = np.array([100.0, 30.0, -20.0, 15.0, 50.0])
    data = synthetic(5000, truth, k=1.3, seed=3)
    data.weights = np.array([60.0, 0.0, 0.0, 0.0, 0.0])
    fit = fit_weights(data, k=1.3, min_positions=1, only=["a"])
    assert fit.tuned == ["a.mg", "a.eg"]
    assert list(fit.weights[[0, 3, 4]]) == [60.0, 0.0, 0.0]  # the others kept their values
    assert list(fit.weights[1:3]) != [0.0, 0.0]
    assert fit_weights(data, k=1.3, min_positions=1, only=["material.*"]).tuned == [
        "material.pawn.mg"]
    with pytest.raises(ValueError, match="among those matching nothing.*"):
        fit_weights(data, k=1.3, min_positions=1, only=["nothing.*"])


def test_a_weight_that_few_positions_move_is_fitted_not_left_at_its_start():
    """As material in real games: 80 % of the positions are level, so the error's gradient in
    that weight is tiny; SciPy's default tolerances stopped the fit after one iteration with
    the weight still at its start (60 here, truth 100)."""
    rng = np.random.default_rng(0)
    truth = np.array([100.0, 30.0, -20.0])
    dense = np.zeros((20000, 3))
    imbalanced = rng.random(20000) < 0.2
    dense[imbalanced, 0] = rng.choice([-1, 1], size=imbalanced.sum())
    dense[:, 1:] = rng.integers(-3, 4, size=(20000, 2))
    constant = rng.normal(0.0, 20.0, size=20000)
    results = (rng.random(20000) < sigmoid(constant + dense @ truth, 1.0)).astype(float)
    data = FeatureSet(["material.pawn.mg", "a.mg", "a.eg"], np.array([60.0, 30.0, -20.0]),
                      scipy.sparse.csr_matrix(dense), constant, constant + dense @ truth,
                      results, 0)
    fit = fit_weights(data, k=1.0, min_positions=1, only=["material.*"])
    assert fit.weights[0] == pytest.approx(100.0, abs=10.0)


def test_largest_changes_are_listed_largest_first():
    from lab.tune.fit import largest_changes

    keys = ["a.mg", "a.eg", "b.mg", "b.eg"]
    before, after = np.array([10.0, 20.0, 30.0, 40.0]), np.array([15.0, 20.0, 10.0, 35.0])
    assert largest_changes(keys, before, after) == [
        ("b.mg", 30.0, 10.0), ("a.mg", 10.0, 15.0), ("b.eg", 40.0, 35.0)]
    assert largest_changes(keys, before, after, count=1) == [("b.mg", 30.0, 10.0)]
    assert largest_changes(keys, before, before) == []


def test_weight_halves_become_pairs():
    assert weight_table(["x.mg", "x.eg", "y.mg", "y.eg"], [1.4, -2.6, 3, 4]) == {
        "x": [1, -3], "y": [3, 4]}


@pytest.fixture(scope="module")
def self_play(tmp_path_factory) -> Path:
    """Four nodes-limited games of our engine against itself from four openings, through
    `tempo gauntlet`."""
    folder = tmp_path_factory.mktemp("selfplay")
    experiment = folder / "selfplay.toml"
    experiment.write_text(SELF_PLAY)
    assert main(["gauntlet", str(experiment), "--out", str(folder / "out"), "--plain"]) == 0
    return folder / "out"


def test_samples_skip_the_book_and_the_first_plies(self_play):
    with read_store(self_play) as store:
        games = store.games()
    samples = sample_positions([self_play], skip=4, per_game=1000)
    assert {s.game_id for s in samples} == {f"{self_play}/{g}" for g in games["game_id"]}
    for game in games.itertuples():
        mine = [s for s in samples if s.game_id == f"{self_play}/{game.game_id}"]
        assert len(mine) == game.plies - 4
        board = chess.Board(game.opening_fen)
        book = [board.push_uci(m) or board.fen() for m in game.opening_moves.split()]
        assert not {s.fen for s in mine} & set(book)
        assert {s.result for s in mine} == {{"1-0": 1.0, "0-1": 0.0}.get(game.result, 0.5)}
    again = sample_positions([self_play], skip=4, per_game=3)
    assert again == sample_positions([self_play], skip=4, per_game=3)
    assert len(again) == 3 * len(games)
    # the same games again (as a deterministic engine replays a paired opening) count once
    assert sample_positions([self_play, self_play], skip=4, per_game=3) == again


def test_games_of_two_folders_are_told_apart(self_play, tmp_path):
    """Every folder numbers its games r0001-e01-g0 on: a hold-out by game id must not take the
    games of one number from every folder as one game."""
    other = tmp_path / "other"
    shutil.copytree(self_play, other)
    with sqlite3.connect(other / "tempo.sqlite") as db:  # other games: one ply shorter
        db.execute("DELETE FROM moves WHERE (game_id, ply) IN "
                   "(SELECT game_id, MAX(ply) FROM moves GROUP BY game_id)")
    samples = sample_positions([self_play, other], skip=4, per_game=3)
    ids = {s.game_id for s in samples}
    with read_store(self_play) as store:
        games = len(store.games())
    assert len(ids) == 2 * games
    game_ids = [s.game_id for s in samples]
    mask = holdout_mask(game_ids, 0.5, seed=1)
    assert len({g for g, held in zip(game_ids, mask) if held}) == games


def test_held_out_games_are_whole_games_and_reproducible():
    ids = [f"g{i // 5}" for i in range(100)]  # 20 games of 5 positions
    mask = holdout_mask(ids, 0.2, seed=3)
    held = {g for g, m in zip(ids, mask) if m}
    assert len(held) == 4 and mask.sum() == 20
    assert all(m == (g in held) for g, m in zip(ids, mask))  # no game on both sides
    assert (holdout_mask(ids, 0.2, seed=3) == mask).all()
    assert not (holdout_mask(ids, 0.2, seed=4) == mask).all()
    assert not holdout_mask(ids, 0.0).any()


def test_a_fit_on_too_few_games_is_caught_by_the_held_out_games():
    """Many weights, few positions: the error on the fitted positions falls, the error on the
    held-out games rises; with enough positions both fall."""
    from lab.tune.fit import mean_squared_error

    truth = np.array([100.0, 30.0, -20.0, 15.0, 50.0])

    def held_out_errors(n: int) -> tuple[float, float, float, float]:
        data = synthetic(n, truth, k=1.3, seed=5)
        data.game_ids = [f"g{i // 2}" for i in range(n)]
        data.weights = truth.copy()
        mask = holdout_mask(data.game_ids, 0.5, seed=1)
        training, validation = data.rows(~mask), data.rows(mask)
        fit = fit_weights(training, k=1.3, min_positions=1)
        return (fit.error_before, fit.error_after,
                mean_squared_error(validation.values(truth), validation.results, 1.3),
                mean_squared_error(validation.values(fit.weights), validation.results, 1.3))

    before, after, held_before, held_after = held_out_errors(24)
    assert after < before and held_after > held_before
    before, after, held_before, held_after = held_out_errors(20000)
    assert after <= before and held_after == pytest.approx(held_before, abs=2e-4)


def test_the_engine_features_keep_quiet_positions_only():
    samples = [Sample(chess.STARTING_FEN, 0.5, "g"),
               Sample("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1", 0.0, "g")]  # in check
    features = engine_features(samples, BUILTIN_ENGINES["tempo"])
    assert features.skipped == 1 and list(features.results) == [0.5]
    assert features.values(features.weights) == pytest.approx(features.evals)


def test_tempo_tune_writes_weights_the_engine_loads(self_play, tmp_path, capsys):
    out = tmp_path / "weights.json"
    code = main(["tune", str(self_play), "--out", str(out), "--skip", "2", "--per-game", "40",
                 "--min-positions", "5", "--ridge", "1e-8", "--holdout", "0.25"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    data = json.loads(out.read_text())
    record = data["tune"]
    assert record["error_after"] < record["error_before"] and record["tuned"] > 10
    assert f"weights written to {out}" in printed.out
    assert "largest changes: " in printed.out
    # --holdout 0.25 of four games: one game is held out, and its error is reported
    assert record["holdout"] == 0.25 and record["held_out_games"] == 1
    assert record["held_out_positions"] > 0 and record["held_out_error_after"] is not None
    assert f"quiet positions of 1 games, mean squared error " \
           f"{record['held_out_error_before']:.6f}" in printed.out
    start = engine_features([Sample(chess.STARTING_FEN, 0.5, "g")], BUILTIN_ENGINES["tempo"])
    assert data["weights"] != weight_table(start.keys, start.weights)
    script = (f"setoption name EvalFile value {out}\nposition startpos moves e2e4\neval\n"
              "isready\nquit\n")
    answer = subprocess.run(BUILTIN_ENGINES["tempo"], input=script, capture_output=True,
                            text=True, timeout=60).stdout
    assert "error" not in answer and "Final evaluation:" in answer


def test_several_ridges_keep_the_one_best_on_held_out_games(self_play, tmp_path, capsys):
    out = tmp_path / "weights.json"
    code = main(["tune", str(self_play), "--out", str(out), "--skip", "2", "--per-game", "40",
                 "--min-positions", "5", "--holdout", "0.25", "--ridge", "0", "1e-4", "1"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    record = json.loads(out.read_text())["tune"]
    ridges = {float(r): e for r, e in record["ridges"].items()}
    assert set(ridges) == {0.0, 1e-4, 1.0} and record["ridge"] == min(ridges, key=ridges.get)
    assert record["held_out_error_after"] == ridges[record["ridge"]]
    kept = [line for line in printed.out.splitlines() if line.endswith("(kept)")]
    assert len(kept) == 1 and kept[0].startswith(f"ridge {record['ridge']:g}:")
    # choosing needs games to choose on
    assert main(["tune", str(self_play), "--out", str(tmp_path / "w.json"), "--holdout", "0",
                 "--ridge", "0", "1"]) == 1
    assert "give --holdout above 0" in capsys.readouterr().err


def test_tempo_tune_names_a_folder_without_games(tmp_path, capsys):
    assert main(["tune", str(tmp_path), "--out", str(tmp_path / "w.json")]) == 1
    assert str(tmp_path) in capsys.readouterr().err
    assert not (tmp_path / "w.json").exists()
