"""The figure rules of CONTRIBUTING.md ("What the reader sees"), checked as each figure is drawn.

nbval runs the reference notebooks in a kernel that executes ``install()`` at
start (``tests/book/conftest.py`` gives it that kernel). From then on, every figure a
cell displays is checked just before it is drawn, and a figure that breaks a
rule raises ``FigureRuleError`` in that cell, naming the figure and the rule, so
nbval fails on it. The rules:

* drawn at two pixels per CSS pixel or more (``InlineBackend.figure_formats =
  ["retina"]``), at most 7.5 in wide, and as drawn at most that and the crop's
  margins (the inline backend crops the image to what is drawn, so a legend
  beyond the edge widens it);
* no two texts of an axes overlap: tick labels (the collision of minor labels
  on log axes), axis labels, titles, annotations, legend entries; and no text
  of an axes lies over another axes (an axis label over the next panel);
* an axis whose label names a count (k, rank, components, iterations...) has
  integer ticks;
* two lines of an axes that share line style and marker, or two one-colour
  scatters that share their marker, are told apart by colour for readers with
  deuteranopia or protanopia too (their colours, simulated with the matrices of
  Machado, Oliveira and Fernandes 2009 at full severity, are at least
  ``MIN_CVD_DISTANCE`` apart in CIELAB).
"""

import re
from itertools import combinations

import numpy as np
from matplotlib.backend_bases import FigureCanvasBase
from matplotlib.collections import PathCollection
from matplotlib.colors import to_rgb

MAX_WIDTH_IN = 7.5
MIN_DPI = 150  # IPython's "retina" format draws at twice the figure's 100 dpi
# CIELAB distance (CIE76) under simulated colour blindness below which two colours
# read as one: tab10's red and green are 7.3 apart, its blue and purple 5.7, its
# blue and orange 101.
MIN_CVD_DISTANCE = 20.0
OVERLAP_PX = 1.0  # texts may touch; overlapping by more than a pixel each way is a collision
TIGHT_PAD_IN = 0.1  # the margin the inline backend's bbox_inches="tight" adds on each side
# An axis label that names a count: "k", "$k$", "rank", "components", "number of ...",
# "iteration(s)", "count", "cardinality" ("component 1", a variance, is not one, nor is
# a ratio such as "rank / n").
COUNT_LABEL = re.compile(
    r"(^|[^\w\\])(k|rank|components|number of|iterations?|count|cardinality)($|[^\w])",
    re.IGNORECASE,
)

# Machado, Oliveira & Fernandes (2009), severity 1.0, on linear RGB.
CVD = {
    "deuteranopia": np.array(
        [
            [0.367322, 0.860646, -0.227968],
            [0.280085, 0.672501, 0.047413],
            [-0.011820, 0.042940, 0.968881],
        ]
    ),
    "protanopia": np.array(
        [
            [0.152286, 1.052583, -0.204868],
            [0.114503, 0.786281, 0.099216],
            [-0.003882, -0.048116, 1.051998],
        ]
    ),
}


class FigureRuleError(AssertionError):
    """A figure breaks one of the book's figure rules."""


def _linear(rgb):
    rgb = np.asarray(rgb, dtype=float)
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


def _lab(linear_rgb):
    """CIELAB (D65) of a linear-RGB colour."""
    xyz = np.array(
        [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]
    ) @ np.clip(linear_rgb, 0, 1)
    xyz = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def cvd_distance(colour_a, colour_b):
    """The smaller CIELAB distance of two colours as seen with deuteranopia and protanopia."""
    a, b = _linear(to_rgb(colour_a)), _linear(to_rgb(colour_b))
    return min(float(np.linalg.norm(_lab(m @ a) - _lab(m @ b))) for m in CVD.values())


def _texts(ax):
    """The texts of an axes a reader reads, each with a name for the message."""
    texts = [("title", ax.title)]
    if ax.axison:  # ax.axis("off") hides the ticks and axis labels, which stay "visible"
        texts += [(f"x tick {t.get_text()!r}", t) for t in ax.get_xticklabels(which="both")]
        texts += [(f"y tick {t.get_text()!r}", t) for t in ax.get_yticklabels(which="both")]
        texts += [("x label", ax.xaxis.label), ("y label", ax.yaxis.label)]
    texts += [(f"text {t.get_text()!r}", t) for t in ax.texts]
    legend = ax.get_legend()
    if legend is not None:
        texts += [(f"legend {t.get_text()!r}", t) for t in legend.get_texts()]
    return [(name, t) for name, t in texts if t.get_visible() and t.get_text().strip()]


def _meet(a, b):
    """Whether two boxes overlap by more than OVERLAP_PX each way."""
    width = min(a.x1, b.x1) - max(a.x0, b.x0)
    height = min(a.y1, b.y1) - max(a.y0, b.y0)
    return width > OVERLAP_PX and height > OVERLAP_PX


def _overlaps(ax, renderer):
    boxes = [(name, t.get_window_extent(renderer)) for name, t in _texts(ax)]
    found = []
    for (name_a, a), (name_b, b) in combinations(boxes, 2):
        if {name_a[:6], name_b[:6]} == {"x tick", "y tick"}:
            continue  # the first labels of the two axes may meet in the corner
        if _meet(a, b):
            found.append(f"{name_a} overlaps {name_b}")
    return found


def _texts_over_other_axes(axes, renderer):
    """Texts of one axes drawn over the plotting area of another."""
    found = []
    areas = [ax.get_window_extent(renderer) for ax in axes]
    for i, ax in enumerate(axes):
        for j, area in enumerate(areas):
            if _meet(areas[i], area):
                continue  # itself, or a twin or an inset that shares its area on purpose
            for name, t in _texts(ax):
                if _meet(t.get_window_extent(renderer), area):
                    found.append(f"{name} of axes {i + 1} lies over axes {j + 1}")
    return found


def _non_integer_ticks(ax):
    found = []
    for axis, name in ((ax.xaxis, "x"), (ax.yaxis, "y")):
        title = axis.label.get_text()
        if axis.get_scale() != "linear" or "/" in title or not COUNT_LABEL.search(title):
            continue
        low, high = sorted(axis.get_view_interval())
        ticks = zip(axis.get_majorticklocs(), axis.get_majorticklabels(), strict=True)
        for tick, text in ticks:
            if low <= tick <= high and text.get_text().strip() and abs(tick - round(tick)) > 1e-9:
                found.append(f"{name} axis {title!r} has the tick {tick:g}")
    return found


def _series(ax):
    """The labelled series of an axes: (kind, label, colour, look).

    Lines, and scatters drawn in one colour (a scatter coloured by a value through
    a colormap is not a series told apart by colour). The look is what tells two
    series apart besides colour: line style and marker, or the scatter's marker shape.
    """
    found = [
        ("lines", line.get_label(), line.get_color(), (line.get_linestyle(), line.get_marker()))
        for line in ax.get_lines()
        if not line.get_label().startswith("_")
    ]
    for points in ax.collections:
        if not isinstance(points, PathCollection) or points.get_label().startswith("_"):
            continue
        faces, edges = points.get_facecolor(), points.get_edgecolor()
        colours = faces if len(faces) and faces[:, 3].max() > 0 else edges
        if len(colours) == 1 and points.get_paths():
            shape = tuple(np.round(points.get_paths()[0].vertices, 3).ravel())
            found.append(("scatters", points.get_label(), tuple(colours[0][:3]), shape))
    return found


def _confusable_series(ax):
    found = []
    for (kind_a, label_a, colour_a, look_a), (kind_b, label_b, colour_b, look_b) in combinations(
        _series(ax), 2
    ):
        same_look = kind_a == kind_b and look_a == look_b
        if same_look and cvd_distance(colour_a, colour_b) < MIN_CVD_DISTANCE:
            found.append(
                f"{kind_a} {label_a!r} and {label_b!r} differ only by colours that "
                "readers with red-green colour blindness cannot tell apart"
            )
    return found


def problems(fig, dpi):
    """Every rule ``fig`` breaks when drawn at ``dpi``, as sentences."""
    found = []
    if dpi < MIN_DPI:
        found.append(f"drawn at {dpi:g} dpi, below {MIN_DPI} (set the retina format)")
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    width = fig.get_size_inches()[0]
    drawn = fig.get_tightbbox(renderer).width + 2 * TIGHT_PAD_IN
    if width > MAX_WIDTH_IN + 1e-9:
        found.append(f"{width:g} in wide, more than {MAX_WIDTH_IN}")
    elif drawn > MAX_WIDTH_IN + 2 * TIGHT_PAD_IN:
        found.append(
            f"{drawn:.3g} in wide as drawn (texts beyond the edge), more than "
            f"{MAX_WIDTH_IN} and the crop's margins"
        )
    axes = [ax for ax in fig.axes if ax.get_visible()]
    for number, ax in enumerate(axes, start=1):
        where = f"axes {ax.get_title()!r}" if ax.get_title() else f"axes {number}"
        for problem in _overlaps(ax, renderer) + _non_integer_ticks(ax) + _confusable_series(ax):
            found.append(f"{where}: {problem}")
    found += _texts_over_other_axes(axes, renderer)
    return found


def install():
    """Check every figure before it is drawn to an image (the inline backend's display)."""
    print_figure = FigureCanvasBase.print_figure

    def checked_print_figure(canvas, filename, *args, dpi=None, **kwargs):
        fig = canvas.figure
        found = problems(fig, dpi if dpi is not None else fig.dpi)
        if found:
            title = fig.get_suptitle()
            raise FigureRuleError(
                f"figure {title!r} breaks the figure rules of CONTRIBUTING.md:\n- "
                + "\n- ".join(found)
            )
        return print_figure(canvas, filename, *args, dpi=dpi, **kwargs)

    FigureCanvasBase.print_figure = checked_print_figure
