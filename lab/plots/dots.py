"""Many dots as one path: jittered values drawn as a single compound path of circles.

A matplotlib marker is one SVG element per point (`<use>` with its own style), and the
time-usage figure jitters a dot per game side over its boxes: thousands of elements, a fifth of
the time it took to write the report page's SVG. `Dots` draws the same circles as ONE path (one
SVG `<path>`, one Agg fill), sized in points as a marker is. Overlapping dots no longer darken
each other (one fill, one alpha).

This module imports matplotlib at its top: the plots import it inside the functions that draw.
"""

from __future__ import annotations

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.colors import to_rgba
from matplotlib.path import Path
from matplotlib.transforms import IdentityTransform

#: Diameter, in points, of a marker "o" of markersize 4 with its default 1 pt edge.
DOT_SIZE = 5.0
#: Corners of each dot: at 5 pt an octagon looks round, and its 9 path points keep the SVG as
#: small as markers were (a Bézier circle takes 26, three times the text).
SIDES = 8


class Dots(Artist):
    """Filled dots (octagons) of `size` points centred on data points, drawn as one path."""

    zorder = 2  # as a Line2D's markers: over the grid and boxes' fill

    def __init__(self, xy: np.ndarray, color: str, alpha: float, size: float = DOT_SIZE) -> None:
        super().__init__()
        self.xy = np.asarray(xy, dtype=float).reshape(-1, 2)
        self._rgba = to_rgba(color, alpha)
        self._size = size

    def draw(self, renderer) -> None:  # noqa: ANN001 (a matplotlib RendererBase)
        if not self.get_visible() or not len(self.xy):
            return
        centres = self.axes.transData.transform(self.xy)
        shape = Path.unit_regular_polygon(SIDES)
        radius = renderer.points_to_pixels(self._size / 2.0)
        vertices = (centres[:, None, :] + shape.vertices[None, :, :] * radius).reshape(-1, 2)
        vertices = vertices.round(1)  # a tenth of a pixel: shorter numbers in the SVG text
        path = Path(vertices, np.tile(shape.codes, len(centres)))
        gc = renderer.new_gc()
        self._set_gc_clip(gc)
        gc.set_linewidth(0.0)
        renderer.draw_path(gc, path, IdentityTransform(), self._rgba)
        gc.restore()
        self.stale = False


def dots(ax: Axes, x: np.ndarray, y: np.ndarray, color: str, alpha: float, label: str) -> None:
    """Dots at (x, y) on `ax` (its limits take them in), and an empty marker line that carries
    `label` and the dots' look into the legend."""
    xy = np.column_stack([np.asarray(x, dtype=float), np.asarray(y, dtype=float)])
    ax.add_artist(Dots(xy, color, alpha))
    ax.update_datalim(xy)
    ax.autoscale_view()
    ax.plot([], [], "o", color=color, alpha=alpha, markersize=4, label=label)
