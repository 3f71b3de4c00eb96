"""A log-log line chart (perfplot's look) drawn by Graphviz itself: plain lists in, bytes out.

Every mark is a node pinned with `pos="x,y!"` and laid out by `neato -n` (no layout: positions
are taken as given, in points), so the chart needs no plotting library: data points are point
nodes joined by straight edges, axes, grid lines and ticks are edges between invisible nodes,
and all text is plaintext nodes. One colour per series label, one line style per group.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import graphviz

from detachviz.render import backend, quoting

# matplotlib's tab10, which perfplot inherits: the first colours a perfplot user expects.
COLORS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
# One per group, in order of first appearance (e.g. detachviz solid, torch dashed).
LINE_STYLES = ("solid", "dashed", "dotted")
AXIS_COLOR = "#333333"
GRID_COLOR = "#e5e5e5"
TEXT_COLOR = "#222222"
# NOTE: Helvetica has metrics in graphviz-pure (drawn with its bundled Arimo) and in system
# Graphviz; the generic "sans-serif" falls back to Times in graphviz-pure.
FONT = "Helvetica"
FONT_SIZE = 11
TITLE_SIZE = 14

# Geometry in points (1/72 inch); the y axis points up, as in Graphviz.
PLOT_W, PLOT_H = 480.0, 330.0
LEFT, BOTTOM, TOP = 66.0, 52.0, 44.0
LEGEND_GAP, LEGEND_W = 22.0, 170.0
LEGEND_ROW = 17.0
LEGEND_SWATCH = 26.0
TICK, MINOR_TICK = 5.0, 3.0
DPI = 110  # png/jpg resolution: ~1070 px wide, crisp on a docs page

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


@dataclass(frozen=True)
class Series:
    """One line: `label` picks its colour (and legend entry), `group` its line style."""

    label: str
    xs: Sequence[float]
    ys: Sequence[float]
    group: str = ""


def power_label(exponent: int) -> str:
    """`10⁻⁶` for -6, as perfplot labels a log axis (Unicode superscripts render everywhere)."""
    return "10" + str(exponent).translate(_SUPERSCRIPT)


def decades(values: Sequence[float]) -> tuple[int, int]:
    """The whole powers of ten that enclose `values` (at least one decade wide)."""
    lo = math.floor(math.log10(min(values)) + 1e-9)
    hi = math.ceil(math.log10(max(values)) - 1e-9)
    return lo, max(hi, lo + 1)


class _Scale:
    """Maps a value to a coordinate along one log axis of `length` points from `start`."""

    def __init__(self, lo: int, hi: int, start: float, length: float) -> None:
        self.lo, self.hi, self.start, self.length = lo, hi, start, length

    def __call__(self, value: float) -> float:
        return self.start + (math.log10(value) - self.lo) / (self.hi - self.lo) * self.length


def _pos(x: float, y: float) -> str:
    return f"{x:.2f},{y:.2f}!"


def _usable(xs: Sequence[float], ys: Sequence[float]) -> list[tuple[float, float]]:
    """The points a log-log chart can show: both coordinates finite and positive."""
    return [
        (x, y) for x, y in zip(xs, ys) if math.isfinite(x) and math.isfinite(y) and x > 0 and y > 0
    ]


def _check(series: Sequence[Series]) -> None:
    if not series:
        raise ValueError("a chart needs at least one series")
    for s in series:
        if len(s.xs) != len(s.ys):
            raise ValueError(
                f"series {s.label!r} has {len(s.xs)} x values but {len(s.ys)} y values"
            )
    if not any(_usable(s.xs, s.ys) for s in series):
        raise ValueError("no positive, finite data point to draw on log-log axes")


def _first_seen(items: Sequence[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


class _Canvas:
    """A graphviz Graph whose every node is pinned; names are stable counters, never id()."""

    def __init__(self, width: float, height: float) -> None:
        self.g = graphviz.Graph("chart", engine="neato")
        self.g.attr(
            bgcolor="white",
            outputorder="edgesfirst",  # points and text on top of lines and grid
            dpi=str(DPI),
            pad="0",
        )
        self.g.attr("node", fontname=FONT, fontsize=str(FONT_SIZE), fontcolor=TEXT_COLOR)
        self.g.attr("edge", penwidth="1")
        self._n = 0
        # Two invisible corners fix the canvas, so margins do not depend on the data.
        self.anchor(0.0, 0.0)
        self.anchor(width, height)

    def _name(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}{self._n}"

    def anchor(self, x: float, y: float) -> str:
        name = self._name("a")
        self.g.node(name, "", shape="point", width="0", style="invis", pos=_pos(x, y))
        return name

    def point(self, x: float, y: float, color: str) -> str:
        name = self._name("p")
        self.g.node(
            name, "", shape="point", width="0.05", color=color, fillcolor=color, pos=_pos(x, y)
        )
        return name

    def line(self, x0: float, y0: float, x1: float, y1: float, **attrs: str) -> None:
        self.g.edge(self.anchor(x0, y0), self.anchor(x1, y1), **attrs)

    def text(
        self,
        x: float,
        y: float,
        text: str,
        *,
        align: str = "center",
        width: float = 0.0,
        size: int = FONT_SIZE,
    ) -> None:
        """Text centred on (x, y); with `align` left/right, (x, y) is that end of the text."""
        # NOTE: with -n, a node's pos is its centre. Left/right text is a fixed-size box of
        # `width` points whose label is justified with \l or \r against the box's edge.
        escaped = str(quoting.label(text))
        attrs = {"shape": "plaintext", "fontsize": str(size), "height": "0.2", "margin": "0"}
        if align == "center":
            cx, label = x, escaped
        else:
            attrs.update(fixedsize="true", width=f"{width / 72.0:.3f}")
            cx = x + width / 2 if align == "left" else x - width / 2
            label = escaped + ("\\l" if align == "left" else "\\r")
        self.g.node(self._name("t"), graphviz.nohtml(label), pos=_pos(cx, y), **attrs)


def chart_source(
    series: Sequence[Series], *, title: str = "", xlabel: str = "", ylabel: str = ""
) -> str:
    """The DOT source of a log-log line chart of `series` (lay it out with `neato -n`)."""
    _check(series)
    points = [p for s in series for p in _usable(s.xs, s.ys)]
    xlo, xhi = decades([x for x, _ in points])
    ylo, yhi = decades([y for _, y in points])
    labels = _first_seen([s.label for s in series])
    groups = _first_seen([s.group for s in series if s.group])
    if len(groups) > len(LINE_STYLES):
        raise ValueError(f"at most {len(LINE_STYLES)} groups can be told apart by line style")
    color = {lab: COLORS[i % len(COLORS)] for i, lab in enumerate(labels)}
    style = {grp: LINE_STYLES[i] for i, grp in enumerate(groups)}

    width = LEFT + PLOT_W + LEGEND_GAP + LEGEND_W
    height = BOTTOM + PLOT_H + TOP
    c = _Canvas(width, height)
    sx = _Scale(xlo, xhi, LEFT, PLOT_W)
    sy = _Scale(ylo, yhi, BOTTOM, PLOT_H)
    right, top = LEFT + PLOT_W, BOTTOM + PLOT_H

    # Grid and ticks first (outputorder=edgesfirst keeps them under the data anyway).
    for e in range(xlo, xhi + 1):
        x = sx(10.0**e)
        if xlo < e < xhi:
            c.line(x, BOTTOM, x, top, color=GRID_COLOR)
        c.line(x, BOTTOM, x, BOTTOM - TICK, color=AXIS_COLOR)
        c.text(x, BOTTOM - TICK - 10, power_label(e))
    for e in range(ylo, yhi + 1):
        y = sy(10.0**e)
        if ylo < e < yhi:
            c.line(LEFT, y, right, y, color=GRID_COLOR)
        c.line(LEFT, y, LEFT - TICK, y, color=AXIS_COLOR)
        c.text(LEFT - TICK - 3, y, power_label(e), align="right", width=LEFT - TICK - 6)
    # Minor ticks (2..9 x each decade), as on any log axis; skipped when decades are crowded.
    for lo, hi, horizontal in ((xlo, xhi, True), (ylo, yhi, False)):
        if hi - lo > 8:
            continue
        for e in range(lo, hi):
            for m in range(2, 10):
                if horizontal:
                    x = sx(m * 10.0**e)
                    c.line(x, BOTTOM, x, BOTTOM - MINOR_TICK, color=AXIS_COLOR)
                else:
                    y = sy(m * 10.0**e)
                    c.line(LEFT, y, LEFT - MINOR_TICK, y, color=AXIS_COLOR)
    # The frame, as matplotlib draws it.
    for x0, y0, x1, y1 in (
        (LEFT, BOTTOM, right, BOTTOM),
        (LEFT, top, right, top),
        (LEFT, BOTTOM, LEFT, top),
        (right, BOTTOM, right, top),
    ):
        c.line(x0, y0, x1, y1, color=AXIS_COLOR)

    # The data: each series a chain of points joined by straight edges.
    for s in series:
        col = color[s.label]
        names = [c.point(sx(x), sy(y), col) for x, y in _usable(s.xs, s.ys)]
        for a, b in zip(names, names[1:]):
            c.g.edge(a, b, color=col, style=style.get(s.group, "solid"), penwidth="1.6")

    # Titles: x below its ticks; y above its axis (Graphviz cannot rotate a label).
    if xlabel:
        c.text(LEFT + PLOT_W / 2, BOTTOM - TICK - 30, xlabel)
    if ylabel:
        c.text(LEFT - TICK - 3, top + 14, ylabel, align="left", width=PLOT_W / 2)
    if title:
        c.text(LEFT + PLOT_W / 2, top + 30, title, size=TITLE_SIZE)

    # Legend, right of the plot: a swatch per label (colour), then per group (line style).
    lx = right + LEGEND_GAP
    y = top - 8
    for lab in labels:
        c.line(lx, y, lx + LEGEND_SWATCH, y, color=color[lab], penwidth="2")
        c.text(lx + LEGEND_SWATCH + 6, y, lab, align="left", width=LEGEND_W - LEGEND_SWATCH - 6)
        y -= LEGEND_ROW
    if groups:
        y -= LEGEND_ROW / 2
        for grp in groups:
            c.line(lx, y, lx + LEGEND_SWATCH, y, color=AXIS_COLOR, style=style[grp], penwidth="1.6")
            c.text(lx + LEGEND_SWATCH + 6, y, grp, align="left", width=LEGEND_W - LEGEND_SWATCH - 6)
            y -= LEGEND_ROW
    return c.g.source


def layout_command(executable: str, tformat: str) -> list[str]:
    """The renderer command for a chart: neato in no-layout mode (-n), positions as given."""
    cmd = backend.build_command(executable, tformat)
    return [cmd[0], "-Kneato", "-n", *cmd[1:]]


def render_chart(
    series: Sequence[Series],
    fmt: str = "svg",
    *,
    title: str = "",
    xlabel: str = "",
    ylabel: str = "",
    renderer: str | None = None,
) -> bytes:
    """The chart as `fmt` bytes (svg, png, jpg, or dot for the source); RenderError on failure."""
    source = chart_source(series, title=title, xlabel=xlabel, ylabel=ylabel)
    name = backend.resolve_renderer(renderer)
    tformat = backend.check_format(fmt, name)
    data = source.encode("utf-8")
    if tformat is None:
        return data
    out = backend.run(layout_command(backend.find_executable(name), tformat), data, name=name)
    return backend.strip_svg_version(out) if tformat == "svg" else out
