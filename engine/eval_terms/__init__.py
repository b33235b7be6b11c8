"""Building blocks of :mod:`engine.evaluate`: precomputed masks, weights and the per-side pass.

Everything here is computed once at import so that the evaluation itself is a handful of
bitboard operations per piece (see docs/reference/engines.md section 2 for why).
"""
