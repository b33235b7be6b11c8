"""A search begun by `go ponder` (timecontrol.ponder): no stop before `ponderhit`, then the
move's stopper, made at the first check after it, sees time and nodes from the hit and the tree
grown while pondering as reused."""

from __future__ import annotations

from timecontrol.common import move_stopper
from timecontrol.go import GoParams
from timecontrol.ponder import PONDERED_ENOUGH, PonderStopper
from timecontrol.smooth import SmoothManager, SmoothParams
from timecontrol.stopper import NodesStopper, SearchStats, Stopper, StopperHints


def at(ms: float, nodes: int, reused: int = 0) -> SearchStats:
    return SearchStats(time_since_movestart_ms=ms, time_since_first_eval_ms=ms - 10,
                       nodes_since_movestart=nodes, total_nodes=reused + nodes,
                       reused_nodes=reused, num_root_moves=20)


class Recorder(Stopper):
    """Keeps what it was asked; stops once 100 nodes were searched for the move."""

    def __init__(self) -> None:
        self.seen: list[SearchStats] = []

    def should_stop(self, stats: SearchStats, hints: StopperHints) -> str | None:
        self.seen.append(stats)
        return "nodes" if stats.nodes_since_movestart >= 100 else None


def test_nothing_stops_a_ponder_search_before_ponderhit_then_it_counts_from_there() -> None:
    made: list[int] = []
    recorder = Recorder()

    def make(total_nodes: int) -> Stopper:
        made.append(total_nodes)
        return recorder

    stopper = PonderStopper(make)
    hints = StopperHints()
    assert stopper.should_stop(at(5000, 10**6, reused=500), hints) is None
    assert hints.remaining_ms == float("inf") and made == [] and stopper.pondering
    assert stopper.telemetry() == {"ponder": True}
    stopper.hit(6000.0)
    assert not stopper.pondering and stopper.since_hit_ms(6250) == 250
    assert stopper.should_stop(at(6004, 2000, reused=500), hints) is None
    assert made == [2500]  # made once, at the first check after the hit, with the whole tree
    assert stopper.should_stop(at(6100, 2099, reused=500), hints) is None
    assert stopper.should_stop(at(6200, 2100, reused=500), hints) == "nodes"
    last = recorder.seen[-1]
    assert (last.time_since_movestart_ms, last.time_since_first_eval_ms) == (200, 190)
    assert (last.nodes_since_movestart, last.reused_nodes, last.total_nodes) == (100, 2500, 2600)
    assert made == [2500]


def test_a_manager_plans_the_move_at_ponderhit_from_the_go_s_clock() -> None:
    """Alpha-beta (no tree): the budget of a 10 s clock, measured from the hit, 30 s into the
    search. MCTS: the ponder tree is reused, and one larger than the move's target needs no
    more search."""
    go = GoParams(wtime=10_000, ponder=True)
    manager = SmoothManager(SmoothParams())
    stopper = PonderStopper(lambda total: move_stopper(
        manager.make_stopper(go, 20, True, None, 50), go, True, 50, iterative=True))
    hints = StopperHints()
    assert stopper.should_stop(at(30_000, 10**5), hints) is None  # far past any budget
    stopper.hit(30_000.0)
    assert stopper.should_stop(at(30_001, 10**5), hints) is None
    telemetry = stopper.telemetry()
    assert 0 < telemetry["budget_ms"] < 1000 and telemetry["ponder"] is True
    assert abs(hints.soft_remaining_ms - (telemetry["budget_ms"] - 1)) < 1  # 1 ms after the hit
    late = at(30_001 + telemetry["hard_ms"], 2 * 10**5)
    assert stopper.should_stop(late, StopperHints()) == "hard-limit"

    manager = SmoothManager(SmoothParams())
    tree = PonderStopper(lambda total: move_stopper(
        manager.make_stopper(go, 20, True, total, 50), go, True, 50, iterative=False))
    tree.hit(30_000.0)
    assert tree.should_stop(at(30_001, 10**6), StopperHints()) == "budget"
    assert tree.telemetry()["budget_ms"] == 0


def test_go_nodes_counts_from_ponderhit() -> None:
    stopper = PonderStopper(lambda total: NodesStopper(1000))
    stopper.hit(100.0)
    assert stopper.should_stop(at(101, 5000), StopperHints()) is None
    assert stopper.should_stop(at(150, 5999), StopperHints()) is None
    assert stopper.should_stop(at(160, 6000), StopperHints()) == "nodes"


class Soft(Stopper):
    """A manager's stopper with a 200 ms soft limit from the move's start, never stopping."""

    def should_stop(self, stats: SearchStats, hints: StopperHints) -> str | None:
        hints.update_soft_ms(200 - stats.time_since_movestart_ms)
        return None


def hit_after(pondered_ms: float, iterative: bool = True) -> PonderStopper:
    stopper = PonderStopper(lambda total_nodes: Soft(), iterative)
    stopper.should_stop(at(pondered_ms / 2, 500), StopperHints())
    stopper.hit(pondered_ms)
    return stopper


def check_after_hit(stopper: PonderStopper, ms_after: float, depth: int = 3) -> str | None:
    stats = at(stopper.hit_ms + ms_after, 1000)
    stats.depth = depth
    return stopper.should_stop(stats, StopperHints())


def test_an_iterative_search_that_pondered_past_the_soft_limit_answers_at_the_hit() -> None:
    """Stockfish's stop on ponderhit: 0.7 x the 200 ms soft limit is 140 ms."""
    assert check_after_hit(hit_after(140.0), 0.0) == PONDERED_ENOUGH
    assert check_after_hit(hit_after(139.0), 0.0) is None  # pondered less: the move searches on
    assert check_after_hit(hit_after(139.0), 0.0, depth=0) is None
    assert check_after_hit(hit_after(5000.0, iterative=False), 0.0) is None  # MCTS: tree reuse
    assert check_after_hit(hit_after(5000.0), 0.0, depth=0) is None  # no iteration to answer with
    late = hit_after(5000.0)
    assert check_after_hit(late, 2.0, depth=0) is None
    assert check_after_hit(late, 4.0) is None  # decided once, at the first check after the hit
