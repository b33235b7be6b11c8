"""Figures of the page as inline SVG: the lab's plots, and the SPRT's LLR over games.

Text stays text (`svg.fonttype = none`: smaller, selectable, in the page's font) and ids are
salted per figure, so several figures can sit in one page without clashing. The figure keeps its
viewBox and its natural width becomes a maximum, so it shrinks with a narrow page but never
grows past the size it was drawn for.
"""

from __future__ import annotations

import io
import re
from html import escape
from typing import TYPE_CHECKING

from lab.page.data import SprtState
from lab.plots.figures import new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_PROLOG = re.compile(r"^.*?(?=<svg)", re.DOTALL)
_SIZE = re.compile(r'<svg([^>]*?) width="([^"]*)" height="[^"]*"')


def inline_svg(fig: Figure, label: str) -> str:
    """`fig` as an `<svg>` element to put in HTML (no XML prolog), titled `label` for screen
    readers."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": label}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    text = _SIZE.sub(r'<svg\1 role="img" style="max-width: \2"',
                     _PROLOG.sub("", buffer.getvalue(), count=1), count=1)
    return text.replace(">", f"><title>{escape(label)}</title>", 1)


def llr_figure(state: SprtState) -> Figure:
    """The LLR after each counted sample against games played, with Wald's bounds."""
    from matplotlib.ticker import MaxNLocator

    result = state.result
    games = [g for g, _ in state.curve]
    values = [v for _, v in state.curve]
    fig = new_figure(9, 3.6, constrained=False)
    fig.subplots_adjust(left=0.065, right=0.975, bottom=0.135, top=0.975)
    ax = fig.subplots()
    ax.axhline(result.upper_bound, color="tab:green", linestyle="--",
               label=f"accept H1 ({result.upper_bound:+.2f})")
    ax.axhline(result.lower_bound, color="tab:red", linestyle="--",
               label=f"accept H0 ({result.lower_bound:+.2f})")
    ax.axhline(0.0, color="0.6", linewidth=0.8)
    ax.step(games, values, where="post", color="C0", linewidth=1.8, label="LLR")
    ax.set_xlabel("games played")
    ax.set_ylabel("log-likelihood ratio")
    ax.set_xlim(0, max(games[-1], 1))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    span = max(abs(result.lower_bound), abs(result.upper_bound)) * 1.15
    ax.set_ylim(min(-span, min(values) * 1.05), max(span, max(values) * 1.05))
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")
    return fig
