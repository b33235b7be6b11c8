"""The page of a results folder (`report.html`): a small real run, read back in headless Chromium.

One module-wide run: our engine (smooth manager, telemetry) against Stockfish at full strength
named `<script>alert(1)</script>` and a weak Stockfish, one pair of games each, resign
adjudication so the games end within seconds. The page is rendered by Chromium to screenshots
(1280 px and phone width) and to its DOM; its numbers are checked against `tempo ratings` and
`tempo sprt` on the same folder.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from lab.cli import main
from lab.page.data import llr_curve, pairings, read_folder, summarize, termination_tables
from lab.page.games import games_json, split_pgn
from lab.page.live import LivePage
from lab.page.write import PAGE_NAME, run_in_progress, write_run_page
from lab.sprt_counts import count_games
from lab.stats import sprt

STOCKFISH = "/usr/games/stockfish"
BOOK = Path(__file__).resolve().parents[2] / "experiments" / "books" / "openings_8ply.epd"
HOSTILE = "<script>alert(1)</script>"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

pytestmark = pytest.mark.skipif(shutil.which(STOCKFISH) is None, reason="needs Debian's Stockfish")


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("needs Debian's chromium (scripts/setup.sh installs it)")
    return found


def browse(url: str, *args: str) -> subprocess.CompletedProcess:
    """Headless Chromium on `url` (a file), with `args` saying what to produce."""
    return subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--no-first-run", "--virtual-time-budget=5000", *args, url],
        capture_output=True, text=True, timeout=120, check=True)


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """A finished four-game gauntlet with an SPRT, played by `tempo gauntlet`."""
    folder = tmp_path_factory.mktemp("page")
    experiment = folder / "page.toml"
    experiment.write_text(
        f'name = "page"\ntc = "2+0.05"\nconcurrency = 1\nmargin_ms = 200\n'
        f'out = "{folder / "page"}"\n\n'
        '[schedule]\ntype = "gauntlet"\nchallengers = ["smooth"]\ngames = 4\n\n'
        f'[openings]\nfile = "{BOOK}"\norder = "sequential"\npaired = true\n\n'
        "[adjudication]\nresign_move_count = 2\nresign_score_cp = 400\nmax_moves = 40\n\n"
        "[sprt]\nelo0 = -10\nelo1 = 0\n\n"
        '[[engines]]\nname = "smooth"\nbuiltin = "tempo"\n'
        'options = { TimeManager = "smooth" }\n\n'
        f'[[engines]]\nname = "{HOSTILE}"\ncmd = ["{STOCKFISH}"]\n'
        'options = { Threads = 1, Hash = 16 }\n\n'
        f'[[engines]]\nname = "weak"\ncmd = ["{STOCKFISH}"]\n'
        'options = { Threads = 1, Hash = 16, "Skill Level" = 0 }\n')
    assert main(["gauntlet", str(experiment), "--plain"]) == 0
    return folder / "page"


class Tables(HTMLParser):
    """The text of each table cell, by the id of the section it is in."""

    def __init__(self) -> None:
        super().__init__()
        self.section = ""
        self.rows: dict[str, list[list[str]]] = {}
        self.facts: dict[str, dict[str, str]] = {}
        self._cell: list[str] | None = None
        self._term = ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section" and attrs.get("id"):
            self.section = attrs["id"]
        elif tag == "tr":
            self.rows.setdefault(self.section, []).append([])
        elif tag in ("td", "th", "dt", "dd"):
            self._cell = []

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[self.section][-1].append("".join(self._cell))
            self._cell = None
        elif tag == "dt" and self._cell is not None:
            self._term = "".join(self._cell)
            self._cell = None
        elif tag == "dd" and self._cell is not None:
            self.facts.setdefault(self.section, {})[self._term] = "".join(self._cell)
            self._cell = None


def parse(path: Path) -> Tables:
    tables = Tables()
    tables.feed(path.read_text(encoding="utf-8"))
    return tables


def test_the_run_writes_its_page_and_tempo_report_rewrites_it(run, capsys):
    page = run / PAGE_NAME
    assert page.is_file()
    written = page.stat().st_mtime_ns
    time.sleep(0.01)
    assert main(["report", str(run)]) == 0
    assert capsys.readouterr().out.strip() == str(page)
    assert page.stat().st_mtime_ns > written
    text = page.read_text(encoding="utf-8")
    # nothing from the network: no linked style, script, image or font
    assert re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text) is None
    assert "<link" not in text and "@import" not in text
    assert re.search(r"""url\(\s*["']?(?!#)""", text) is None  # only the figures' own clips
    assert not list(run.glob("*.tmp"))


def test_page_numbers_are_those_of_tempo_ratings_and_tempo_sprt(run, capsys):
    tables = parse(run / PAGE_NAME)
    assert main(["ratings", str(run)]) == 0
    printed = capsys.readouterr().out.splitlines()
    standings = [row for row in tables.rows["standings"] if row and row[0].isdigit()]
    players = {row[1] for row in standings}
    assert players == {"smooth", HOSTILE, "weak"}
    for row in standings:
        rank, player, rating, error = row[0], row[1], row[2], row[3]
        line = next(line for line in printed if re.match(rf"\s*{rank} {re.escape(player)} ", line))
        bound, value, printed_error, _, played = re.match(
            r"\s*([<>]?)\s*(-?\d+\.\d)\s+(\S+)\s+(\S+)\s+(\d+)", line.split(":", 1)[1]).groups()
        assert rating == bound + value, (player, rating, line)
        assert error == ("—" if printed_error == "----" else f"±{printed_error}"), line
        assert row[6] == played

    assert main(["sprt", str(run)]) == 0
    out = capsys.readouterr().out.splitlines()
    facts = tables.facts["sprt"]
    assert facts["engine"] == "smooth"
    counts = re.search(r"\[(.*)\]", out[1]).group(1)
    assert facts[next(k for k in facts if k.startswith("pentanomial"))] == counts
    assert facts["estimate"] == out[2]
    assert facts["test"] == out[3]
    assert facts["SPRT-corrected"] == out[5]
    llr = float(re.search(r"LLR (\S+)", out[3]).group(1))
    assert float(facts["LLR"].split()[0]) == pytest.approx(llr, abs=0.006)


def test_page_in_chromium_at_desktop_and_phone_width(run, tmp_path):
    url = (run / PAGE_NAME).as_uri()
    for width, height in ((1280, 2400), (390, 4000)):
        shot = tmp_path / f"page-{width}.png"
        browse(url, f"--window-size={width},{height}", f"--screenshot={shot}")
        data = shot.read_bytes()
        assert data.startswith(PNG_SIGNATURE) and len(data) > 50_000
        assert int.from_bytes(data[16:20], "big") == width  # PNG header: the page's width
    dom = browse(url, "--dump-dom").stdout
    assert "<section id=\"standings\">" in dom and "<svg" in dom
    assert dom.count("<script") == 2  # the games' data and the view's script, nothing else


def test_hostile_engine_name_is_text_on_the_page_and_in_a_game_view(run):
    text = (run / PAGE_NAME).read_text(encoding="utf-8")
    assert HOSTILE not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    games = read_folder(run).games
    game_id = games.loc[games["white"] == HOSTILE, "game_id"].iloc[0]
    dom = browse((run / PAGE_NAME).as_uri() + f"#game-{game_id}", "--dump-dom").stdout
    view = dom[dom.index('id="game-view"'):dom.index('id="experiment"')]
    assert f"Game {game_id}: &lt;script&gt;alert(1)&lt;/script&gt; – smooth" in view
    assert "budget s" in view and "moves left" in view and "PGN" in view
    assert HOSTILE not in dom


def test_game_view_lists_every_move_with_its_telemetry(run):
    folder = read_folder(run)
    game_id = str(folder.games["game_id"].iloc[0])
    dom = browse((run / PAGE_NAME).as_uri() + f"#game-{game_id}", "--dump-dom").stdout
    view = dom[dom.index('id="game-view"'):dom.index('id="experiment"')]
    moves = folder.moves[folder.moves["game_id"] == game_id]
    rows = re.findall(r"<tr><td>(\d+)</td><td>([^<]*)</td>", view)
    assert [(int(p), s) for p, s in rows] == list(zip(moves["ply"], moves["san"], strict=True))
    ours = moves[moves["engine"] == "smooth"]
    first = ours.iloc[0]
    assert f"{first['tm_budget_ms'] / 1000:.3f}" in view
    assert str(first["tm_stop_reason"]) in view
    assert f'[GameId "{game_id}"]' in view
    chart = view[view.index("<svg"):view.index("</svg>")]
    budget_ticks = re.findall(r'<rect[^>]*fill="#1d2330"', chart)
    assert len(budget_ticks) == ours["tm_budget_ms"].notna().sum()
    assert chart.count("<rect") == len(moves) + ours["tm_budget_ms"].notna().sum()


def test_summary_tables_agree_with_the_games(run):
    folder = read_folder(run)
    summary = summarize(folder)
    assert summary.progress.played == summary.progress.scheduled == 4
    by_pair = {(p.first, p.second): p for p in summary.pairings}
    assert set(by_pair) == {("smooth", HOSTILE), ("smooth", "weak")}
    for pairing in summary.pairings:
        assert sum(pairing.wdl) == 2 and sum(pairing.penta) == 1
    assert summary.terminations.to_numpy().sum() == 2 * len(folder.games)
    counts = count_games(folder.games, folder.config)
    curve = llr_curve(folder.games, counts, folder.config["sprt"])
    cfg = folder.config["sprt"]
    final = sprt(counts.counts, cfg["elo0"], cfg["elo1"], cfg["alpha"], cfg["beta"],
                 cfg["model"])
    assert curve[0] == (0, 0.0) and curve[-1][1] == pytest.approx(final.llr)
    assert [g for g, _ in curve] == [0, 2, 4]  # a pair counts when its second game ends


def test_terminations_and_pairings_from_a_frame():
    games = pd.DataFrame({
        "white": ["a", "b", "a", "c"], "black": ["b", "a", "c", "a"],
        "result": ["1-0", "1-0", "0-1", "1/2-1/2"],
        "termination": ["normal", "time forfeit", "abandoned", "adjudication"],
        "pair_id": ["p1", "p1", "p2", "p2"],
    })
    ended, lost = termination_tables(games, ["a", "b", "c"])
    assert ended.loc["a"].to_dict() == {"normal": 1, "adjudication": 1, "time forfeit": 1,
                                        "abandoned": 1}
    assert lost.loc["a", "time forfeit"] == 1 and lost.loc["b", "time forfeit"] == 0
    assert lost.loc["a", "abandoned"] == 1 and lost.loc["c", "abandoned"] == 0
    found = {(p.first, p.second): (p.wdl, p.penta) for p in pairings(games, ["a", "b", "c"])}
    # a vs b: a won as White and lost on time as Black: one WL pair
    assert found[("a", "b")] == ([1, 0, 1], [0, 0, 1, 0, 0])
    # a vs c: a lost (abandoned) then drew: one LD pair
    assert found[("a", "c")] == ([1, 1, 0], [0, 1, 0, 0, 0])


def test_games_data_cannot_close_its_script_element():
    games = pd.DataFrame({"game_id": ["g1"], "white": ["</script><script>alert(1)//"],
                          "black": ["b&c"], "result": ["1-0"], "termination": ["normal"],
                          "reason": ["<b>mate</b>"], "tc": ["1+0"], "started_at": [""]})
    moves = pd.DataFrame({"game_id": ["g1"], "ply": [1], "san": ["e4"], "move": ["e2e4"],
                          "side": ["white"], "score_cp": [25], "score_mate": [None],
                          "elapsed_ms": [12.34]})
    text = games_json(games, moves, {"g1": '[Event "</script>"]'})
    assert "<" not in text and ">" not in text and "&" not in text
    assert '"elapsed_ms":[12.3]' in text and '"score":["+0.25"]' in text


def test_split_pgn_by_game_id():
    text = ('[Event "x"]\n[GameId "a"]\n\n1. e4 e5 1-0\n\n\n'
            '[Event "y"]\n[GameId "b \\"q\\""]\n\n1. d4 {a\n\n[b} 0-1\n\n')
    found = split_pgn(text)
    assert set(found) == {"a", 'b "q"'}
    assert found["a"].endswith("1-0") and found['b "q"'].startswith('[Event "y"]')


def test_tempo_report_names_a_folder_that_is_not_a_results_folder(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert str(tmp_path) in err and "not a results folder" in err
    assert not (tmp_path / PAGE_NAME).exists()


def test_live_page_writes_off_the_caller_and_at_most_once_per_interval(run):
    (run / PAGE_NAME).unlink()
    live = LivePage(run, interval_s=30.0)
    started = time.perf_counter()
    for _ in range(20):
        live.refresh()
    assert time.perf_counter() - started < 0.5  # the caller never waits for a page
    deadline = time.monotonic() + 60
    while live.writes == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    live.close()
    assert live.writes == 1 and live.problem == ""
    assert parse(run / PAGE_NAME).facts["experiment"]["games"] == "running: 4 of 4 games"
    write_run_page(run)
    assert parse(run / PAGE_NAME).facts["experiment"]["games"] == "finished: 4 of 4 games"


def test_tempo_report_says_running_while_a_run_holds_the_folder(run, capsys):
    from lab.store import open_store

    assert not run_in_progress(run)
    with open_store(run) as store:
        store.lock_for_run()
        assert run_in_progress(run)
        assert main(["report", str(run)]) == 0
        status = parse(run / PAGE_NAME).facts["experiment"]["games"]
        assert status == "running: 4 of 4 games"
    assert not run_in_progress(run)
    assert main(["report", str(run)]) == 0
    assert parse(run / PAGE_NAME).facts["experiment"]["games"] == "finished: 4 of 4 games"


def test_progress_eta_from_the_pace_of_recent_games():
    from lab.page.data import progress

    finished = [f"2026-01-01T00:00:{10 * k:02d}+00:00" for k in range(4)]
    games = pd.DataFrame({"started_at": ["2026-01-01T00:00:00+00:00"] * 4,
                          "finished_at": finished})
    running = progress(games, scheduled=10, running=True)
    assert (running.played, running.scheduled) == (4, 10)
    assert running.eta_s == pytest.approx(6 * 10.0)  # 6 games left, one every 10 s
    assert progress(games, scheduled=10, running=False).eta_s is None
    assert progress(games, scheduled=4, running=True).eta_s is None


def test_scheduled_games_as_the_schedule_counts_them():
    from lab.page.data import scheduled_games

    config = {"name": "x", "tc": "1+0", "schedule": "gauntlet", "challengers": ["a"],
              "rounds": 3, "games": None,
              "openings": {"file": None, "order": "sequential", "paired": True},
              "engines": [{"name": n, "cmd": ["e"]} for n in ("a", "b", "c")]}
    assert scheduled_games(config) == 3 * 2 * 2  # rounds x encounters x paired games
    assert scheduled_games({**config, "schedule": "round-robin"}) == 3 * 3 * 2
    assert scheduled_games({**config, "games": 7}) == 7
    assert scheduled_games({}) is None


def test_bench_page_builds_a_folder_and_prints_its_figures(tmp_path, capsys):
    folder = tmp_path / "bench"
    assert main(["bench", "page", "--games", "6", "--repeat", "1", "--folder", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "built 6 games, 3 engines" in out and re.search(r"write 1: [\d.]+ s wall-clock", out)
    summary = summarize(read_folder(folder))
    assert summary.progress.played == 6 and len(summary.pairings) == 3
    assert set(split_pgn((folder / "games.pgn").read_text())) == set(summary.games["game_id"])


def test_llr_curve_of_single_games_and_of_pairs_ends_at_the_sprt():
    results = ["1-0", "1/2-1/2", "0-1", "1-0", "1-0", "1/2-1/2"]
    games = pd.DataFrame({"white": ["a", "b"] * 3, "black": ["b", "a"] * 3, "result": results,
                          "pair_id": [None] * 6})
    cfg = {"elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05, "model": "normalized"}
    config = {"schedule": "gauntlet", "challengers": ["a"], "sprt": cfg}
    single = count_games(games, config)
    assert single.counts == [2, 2, 2]  # a scores 1, ½, 0, 0, 1, ½
    curve = llr_curve(games, single, cfg)
    assert [g for g, _ in curve] == list(range(7))
    assert curve[-1][1] == pytest.approx(sprt(single.counts, **cfg).llr)
    paired = games.assign(pair_id=["p1", "p1", "p2", "p2", "p3", "p3"])
    pairs = count_games(paired, config)
    assert pairs.counts == [1, 0, 0, 2, 0]  # pairs of a: 1½ (WD), 0 (LL), 1½ (WD)
    curve = llr_curve(paired, pairs, cfg, points=2)
    assert [g for g, _ in curve] == [0, 4, 6]  # the second pair (game 4), and the last
    assert curve[-1][1] == pytest.approx(sprt(pairs.counts, **cfg).llr)
