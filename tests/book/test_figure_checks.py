"""The figure checks that nbval's kernels run (tests/book/figure_checks.py) catch each rule broken.

Each test draws a figure that breaks one rule and the same figure mended, so a
check that stopped seeing its defect, or began to flag good figures, fails here.
"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from figure_checks import MIN_CVD_DISTANCE, cvd_distance, problems
from matplotlib.ticker import MaxNLocator

RETINA = 200


@pytest.fixture
def figure():
    fig, ax = plt.subplots(figsize=(6, 3))
    yield fig, ax
    plt.close(fig)


def test_a_plain_figure_passes(figure):
    fig, ax = figure
    ax.plot([0, 1, 2], [1, 3, 2], label="data")
    ax.set_xlabel("time")
    ax.legend()
    assert problems(fig, RETINA) == []


def test_resolution_and_width(figure):
    fig, ax = figure
    ax.plot([0, 1], [0, 1])
    assert any("dpi" in p for p in problems(fig, 100))
    fig.set_size_inches(8, 3)
    assert any("wide" in p for p in problems(fig, RETINA))


def test_red_against_green_alone_is_caught_and_line_styles_mend_it(figure):
    fig, ax = figure
    ax.plot([0, 1], [0, 1], color="tab:red", label="mu")
    green = ax.plot([0, 1], [1, 0], color="tab:green", label="pg")[0]
    assert any("colour blindness" in p for p in problems(fig, RETINA))
    green.set_linestyle("--")
    assert problems(fig, RETINA) == []


def test_colour_distance_under_simulated_colour_blindness():
    # Red and green are far apart for a trichromat and close for a deuteranope.
    assert cvd_distance("tab:red", "tab:green") < MIN_CVD_DISTANCE
    assert cvd_distance("tab:blue", "tab:orange") > 3 * MIN_CVD_DISTANCE
    assert cvd_distance("black", "black") == pytest.approx(0.0, abs=1e-9)


def test_colliding_texts_are_caught(figure):
    fig, ax = figure
    ax.plot([0, 1], [0, 1])
    ax.text(0.5, 0.5, "first label")
    second = ax.text(0.52, 0.5, "second label")
    assert any("overlaps" in p for p in problems(fig, RETINA))
    second.set_position((0.5, 0.2))
    assert problems(fig, RETINA) == []


def test_crowded_log_tick_labels_are_caught(figure):
    fig, ax = figure
    ax.semilogx([1, 1e3], [0, 1])
    every_minor = matplotlib.ticker.LogFormatterSciNotation(
        labelOnlyBase=False, minor_thresholds=(float("inf"), float("inf"))
    )
    ax.xaxis.set_minor_formatter(every_minor)
    assert any("x tick" in p and "overlaps" in p for p in problems(fig, RETINA))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    assert problems(fig, RETINA) == []


def test_counts_need_integer_ticks(figure):
    fig, ax = figure
    ax.plot([1, 2, 3, 4], [4, 3, 2, 1])
    ax.set_xlim(1, 4)
    ax.set_xlabel("number of components $k$")
    assert any("tick 1.5" in p for p in problems(fig, RETINA))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    assert problems(fig, RETINA) == []


@pytest.mark.parametrize("label", ["rank / n", "proportion of variance, component 1"])
def test_ratios_and_named_components_are_not_counts(figure, label):
    fig, ax = figure
    fig.set_size_inches(6, 4.5)  # room for the long label along the y axis
    ax.plot([0, 1], [0, 0.4])
    ax.set_ylabel(label)
    assert problems(fig, RETINA) == []
    ax.set_ylabel("rank")
    assert any("tick 0.1" in p for p in problems(fig, RETINA))


def test_texts_beyond_the_edge_or_over_the_next_panel_are_caught():
    fig, (left, right) = plt.subplots(1, 2, figsize=(7.5, 3))
    try:
        for ax in (left, right):
            ax.plot([0, 1], [0, 1], label="a line with a long name")
        right.set_ylabel("a label long enough to reach the panel on its left", labelpad=60)
        legend = right.legend(loc="upper left", bbox_to_anchor=(0.9, 1))
        found = problems(fig, RETINA)
        assert any("as drawn" in p for p in found)
        assert any("y label of axes 2 lies over axes 1" in p for p in found)
        right.set_ylabel("short")
        legend.remove()
        fig.set_layout_engine("constrained")
        assert problems(fig, RETINA) == []
    finally:
        plt.close(fig)


def test_the_hidden_ticks_of_image_panels_are_not_texts():
    fig, axes = plt.subplots(1, 8, figsize=(7.5, 1.4))
    try:
        for ax in axes:
            ax.imshow(np.zeros((25, 25)))
        assert any("lies over" in p for p in problems(fig, RETINA))
        for ax in axes:
            ax.axis("off")
        assert problems(fig, RETINA) == []
    finally:
        plt.close(fig)


def test_scatters_in_red_and_green_alone_are_caught_and_markers_mend_them(figure):
    fig, ax = figure
    ax.scatter([0, 1], [0, 1], color="tab:red", label="σ² = 4")
    green = ax.scatter([0, 1], [1, 0], color="tab:green", label="σ² = 1")
    ax.scatter([0, 1], [0.5, 0.5], c=[0.0, 1.0], cmap="viridis", label="by value")
    assert any("scatters 'σ² = 4' and 'σ² = 1'" in p for p in problems(fig, RETINA))
    green.remove()
    ax.scatter([0, 1], [1, 0], color="tab:green", marker="s", label="σ² = 1")
    assert problems(fig, RETINA) == []
