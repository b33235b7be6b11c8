"""Benchmarks of `tempo bench NAME`: one per module here, dispatched by `lab.commands.bench`."""

#: Each benchmark's module and its one-line help, in the order `tempo bench --help` lists them.
SUMMARIES = {
    "elo": "a short UCI_Elo ladder (score matrix) and where the search-effort limits saturate",
    "engine": "engine bench (nodes, time, NPS) per mode under CPython and PyPy",
    "harness": "harness latency, games per hour, time losses",
    "instructions": "engine bench in instructions (callgrind), this checkout against revisions",
    "page": "writing report.html for a 1000-game, 3-engine results folder",
    "ratings": "rating-fit times on 10k/100k/1M-game pools",
    "tm": "time managers in self-play: forfeits, time used, nodes-per-move spread",
}
