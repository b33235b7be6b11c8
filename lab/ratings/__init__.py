"""Rating fits: Ordo's and BayesElo's models, anchors, bounds, error bars (see `fit_ratings`)."""

from lab.ratings.fit import DisconnectedPoolError, fit_ratings
from lab.ratings.table import RatingTable

__all__ = ["DisconnectedPoolError", "RatingTable", "fit_ratings"]
