"""Tempo's reference UCI engine.

Run it with `python -m engine` (this interpreter) or `tempo-engine` (CPython, PyPy on request, see
`engine.launcher`); `tempo-engine bench` prints the deterministic bench. The parts:

- `engine.uci`, `engine.options`: the UCI loop (search on a worker thread) and its options table;
- `engine.search`: one module per `SearchMode` with one entry point `search(ctx)`
  (`alphabeta`, `greenblatt`, `mcts`), fed a `SearchContext` and returning a `SearchResult`;
- `engine.ordering`: move ordering and Greenblatt-style plausibility, shared by the modes;
- `engine.score`, `engine.tt`: score representation and the transposition table;
- `engine.evaluate`: the static evaluation; `engine.strength`, `engine.limiter`: Elo limiting;
- `engine.bench`: the fixed-depth bench.
"""
