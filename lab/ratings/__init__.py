"""Rating fits: Ordo's and BayesElo's models, anchors, bounds, error bars (see `fit_ratings`).

- `pool`: games condensed per (white, black) pairing; perfect-score purge; connectivity groups;
  BayesElo's virtual draws. `graph`: whether the pool's graph is in one piece (numpy sweeps).
- `models`: the two likelihoods with their derivatives, Ordo's draw model, BayesElo's scale.
- `fit`: Newton fits with anchors, curvature and simulated errors, LOS, head to head.
- `table`: `RatingTable`, its CSV and Ordo-like text; its frames are built on first use.
- `inputs`: results folders and PGN files as rows; `pgn_headers`: the PGN tag scan.

`tempo ratings` goes from rows to the printed table without pandas (`condense_rows`, plain
standings); pandas loads for `--los`, `--head-to-head`, `--csv` and `--simulations`.
"""

from lab.ratings.fit import DisconnectedPoolError, fit_ratings
from lab.ratings.table import RatingTable

__all__ = ["DisconnectedPoolError", "RatingTable", "fit_ratings"]
