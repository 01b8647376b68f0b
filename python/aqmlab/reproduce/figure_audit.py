"""Saving a figure (PNG and SVG) and checking it against the rules of :mod:`.figures`
(:func:`audit`: data drawn, axes labelled with their units, legends that fit, no text over
text; :func:`save` warns with :class:`FigureWarning`), and placing point labels so that they
do not overlap (:func:`place_labels`)."""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import import_extra

# matplotlib is the optional extra aqmlab[plot]; without it, reproducing fails here, before any
# run, with one line naming the extra.
matplotlib = import_extra("matplotlib", "plot", "drawing figures")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from .figure_model import MAX_LEGEND, UNIT_RE  # noqa: E402


class FigureWarning(UserWarning):
    """A saved figure breaks one of the rules of :func:`audit`."""


# --------------------------------------------------------------------------- saving and checking
def save(fig: Any, out_dir: Path, stem: str) -> list[Path]:
    """Writes ``stem.png`` and ``stem.svg``; warns (:class:`FigureWarning`) with every problem
    :func:`audit` finds, then closes the figure."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{stem}.png", out_dir / f"{stem}.svg"]
    fig.savefig(paths[0], dpi=120, bbox_inches="tight")
    # The PNG's draw laid out the tick labels the audit reads: it needs no draw of its own
    # (a fifth of the figures' time, which is half of a reproduction's tables and figures).
    for problem in audit(fig, drawn=True):
        warnings.warn(FigureWarning(f"{out_dir / stem}: {problem}"), stacklevel=2)
    fig.savefig(paths[1], bbox_inches="tight")
    plt.close(fig)
    return paths


def _finite_xy(line: Line2D) -> bool:
    x = np.asarray(line.get_xdata(), dtype=float)
    y = np.asarray(line.get_ydata(), dtype=float)
    return bool(np.any(np.isfinite(x) & np.isfinite(y))) if len(x) and len(y) else False


def _has_data(ax: Any) -> bool:
    return bool(ax.lines or ax.collections or ax.patches or ax.images)


def _categorical(axis: Any) -> bool:
    """True if the axis' tick labels name things (words) rather than numbers."""
    labels = [t.get_text() for t in axis.get_ticklabels() if t.get_text()]
    if not labels:
        return False
    words = [re.sub(r"\\(mathdefault|times)", "", s) for s in labels]
    return all(re.search(r"[A-DF-Za-df-z_]", w) for w in words)  # "1e-05" is a number


def _label_ok(ax: Any, which: str) -> bool:
    get = ax.get_xlabel if which == "x" else ax.get_ylabel
    if UNIT_RE.search(get() or ""):
        return True
    shared = ax.get_shared_x_axes() if which == "x" else ax.get_shared_y_axes()
    for sib in shared.get_siblings(ax):
        if sib is not ax and UNIT_RE.search((sib.get_xlabel() if which == "x" else sib.get_ylabel()) or ""):
            return True
    axis = ax.xaxis if which == "x" else ax.yaxis
    # a categorical axis (configurations, K = 10, ...) is labelled by its ticks
    return _categorical(axis) and bool(get())


def audit(fig: Any, *, drawn: bool = False) -> list[str]:
    """What makes ``fig`` hard to use: a panel with more than :data:`MAX_LEGEND` legend
    entries, a plotted axis without a label ending in "(unit)" (a categorical axis needs a
    label, its ticks name the categories), a drawn line without a finite point, a legend entry
    for a line that shows nothing. ``drawn``: the figure was drawn (saved) since it last
    changed, so its tick labels exist and it is not drawn again."""
    problems = []
    if not drawn:
        fig.canvas.draw()  # tick labels exist only after a draw
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible() or not _has_data(ax):
            continue
        name = f"panel {i} ({ax.get_title() or 'untitled'})"
        leg = ax.get_legend()
        if leg is not None and len(leg.get_texts()) > MAX_LEGEND:
            problems.append(f"{name}: legend has {len(leg.get_texts())} entries (> {MAX_LEGEND})")
        for which in ("x", "y"):
            if which == "x" and not ax.xaxis.get_visible():
                continue
            if not _label_ok(ax, which):
                lab = ax.get_xlabel() if which == "x" else ax.get_ylabel()
                problems.append(f"{name}: {which} axis label {lab!r} has no unit")
        for line in ax.lines:
            if not _finite_xy(line):
                problems.append(f"{name}: line {line.get_label()!r} has no finite point")
        for a, b in overlapping_texts(ax):
            problems.append(f"{name}: labels {a!r} and {b!r} overlap")
    for leg in fig.legends:
        if len(leg.get_texts()) > MAX_LEGEND:
            problems.append(f"figure legend has {len(leg.get_texts())} entries (> {MAX_LEGEND})")
    return problems


def overlapping_texts(ax: Any) -> list[tuple[str, str]]:
    """The pairs of an axes' texts (labels put on points) whose drawn extents overlap: one
    label hides part of the other (issue 35: the league's figures). Needs a drawn figure."""
    renderer = ax.figure.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in ax.texts if t.get_visible() and t.get_text()]
    return [(a, b) for i, (a, box_a) in enumerate(boxes) for b, box_b in boxes[i + 1 :] if box_a.overlaps(box_b)]


#: Where a point's label may go, in points from the point, tried in this order: beside it
#: first, then further out (with a leader line).
_LABEL_OFFSETS = [
    (dx * r, dy * r)
    for r in (1, 2, 3, 4, 6)
    for dx, dy in ((5, 3), (5, -9), (-5, 3), (-5, -9), (0, 8), (0, -14), (9, -3), (-9, -3))
]


def place_labels(ax: Any, points: Sequence[tuple[float, float, str]], fontsize: float = 8) -> None:
    """Labels each point (x, y, text) of ``ax`` where it overlaps no label placed before and
    stays inside the axes: the first free place of :data:`_LABEL_OFFSETS`, with a leader line
    when away from its point; the least-overlapping place if none is free."""
    fig = ax.figure
    fig.canvas.draw()  # the axes' limits and the renderer, to measure each label
    renderer = fig.canvas.get_renderer()
    inside = ax.get_window_extent(renderer)
    placed: list[Any] = []
    for x, y, text in points:
        best: tuple[float, Any] | None = None
        for dx, dy in _LABEL_OFFSETS:
            far = abs(dx) > 9 or abs(dy) > 14
            t = ax.annotate(
                text,
                (x, y),
                textcoords="offset points",
                xytext=(dx, dy),
                fontsize=fontsize,
                ha="left" if dx > 0 else "right" if dx < 0 else "center",
                arrowprops={"arrowstyle": "-", "lw": 0.5, "color": "0.5"} if far else None,
            )
            box = t.get_window_extent(renderer)
            clash = sum(_overlap_area(box, p) for p in placed)
            if not (inside.x0 <= box.x0 and box.x1 <= inside.x1 and inside.y0 <= box.y0 and box.y1 <= inside.y1):
                clash += box.width * box.height  # outside the axes: as bad as hiding a label
            if best is None or clash < best[0]:
                if best is not None:
                    best[1].remove()
                best = (clash, t)
            else:
                t.remove()
            if clash == 0:
                break
        assert best is not None
        placed.append(best[1].get_window_extent(renderer))


def _overlap_area(a: Any, b: Any) -> float:
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return w * h if w > 0 and h > 0 else 0.0
