"""Subcommands of `tempo`: each module here is one subcommand, dispatched by `lab.cli`."""

#: Each subcommand's module and its one-line help, in the order `tempo --help` lists them.
SUMMARIES = {
    "bench": "run a benchmark and print its figures",
    "calibrate": "calibrate Elo levels against anchors; reruns resume",
    "engine": "run the UCI engine (CPython; PyPy on request)",
    "gauntlet": "run an experiment file (gauntlet or round-robin); reruns resume",
    "match": "a quick two-engine match, no experiment file needed",
    "openings": "build a balanced EPD opening book with an engine's evaluation",
    "plot": "plot time usage, ratings or scores of a run",
    "ratings": "fit ratings (Ordo or BayesElo model) with error bars",
    "report": "write report.html, the page of a results folder",
    "sprt": "SPRT and Elo of a results folder or of given counts",
    "tune": "Texel-tune the evaluation weights on stored games",
}
