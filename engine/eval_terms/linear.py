"""A sparse linear form over named weights, standing in for a packed weight in the evaluation.

With every weight replaced by the unit form of its own name (`engine.eval_terms.tunable`), the
evaluation's own code adds and multiplies these forms instead of packed integers, so what comes
out of :func:`engine.eval_terms.side.side_terms` is, per term, how many times each weight was
counted: the coefficients a Texel tuner fits (CPW, "Texel's Tuning Method"). Only the operations
the evaluation performs on weights are defined: sums, differences, negation, and products with
integer counts; adding a non-zero plain number is an error, since no weight-free constant belongs
in a term.
"""

from __future__ import annotations

from collections.abc import Mapping


class Linear:
    """Coefficients by weight name; ``0`` (a term no weight entered) acts as the empty form."""

    __slots__ = ("coefficients",)

    def __init__(self, coefficients: Mapping[str, int] | None = None) -> None:
        self.coefficients = dict(coefficients or {})

    @staticmethod
    def of(value: object) -> Linear:
        """`value` as a form: a form itself, or the empty form for the integer 0."""
        if isinstance(value, Linear):
            return value
        if value == 0:
            return Linear()
        raise TypeError(f"a weight-free constant {value!r} cannot enter a linear form")

    def __add__(self, other: object) -> Linear:
        other = Linear.of(other)
        merged = dict(self.coefficients)
        for name, count in other.coefficients.items():
            merged[name] = merged.get(name, 0) + count
        return Linear(merged)

    __radd__ = __add__

    def __neg__(self) -> Linear:
        return Linear({name: -count for name, count in self.coefficients.items()})

    def __sub__(self, other: object) -> Linear:
        return self + -Linear.of(other)

    def __rsub__(self, other: object) -> Linear:
        return Linear.of(other) + -self

    def __mul__(self, factor: object) -> Linear:
        if not isinstance(factor, int):
            return NotImplemented
        return Linear({name: count * factor for name, count in self.coefficients.items()})

    __rmul__ = __mul__

    def __repr__(self) -> str:
        return f"Linear({self.coefficients!r})"
