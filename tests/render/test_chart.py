"""The log-log chart: DOT structure for tiny data, then real renders through the backend."""

from __future__ import annotations

import math
import re

import pytest

from detachviz.render import chart
from detachviz.render.chart import Series

NODE = re.compile(r"^\s*(\w+) \[(.*)\]$", re.M)
EDGE = re.compile(r"^\s*(\w+) -- (\w+) \[(.*)\]$", re.M)
ATTR = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')


def attrs(text: str) -> dict[str, str]:
    return {k: v.strip('"') for k, v in ATTR.findall(text)}


def nodes(source: str) -> dict[str, dict[str, str]]:
    found = {name: attrs(body) for name, body in NODE.findall(source)}
    return {n: a for n, a in found.items() if n not in ("graph", "node", "edge")}  # defaults


def edges(source: str) -> list[tuple[str, str, dict[str, str]]]:
    return [(a, b, attrs(body)) for a, b, body in EDGE.findall(source)]


def pos(node: dict[str, str]) -> tuple[float, float]:
    x, y = node["pos"].rstrip("!").split(",")
    return float(x), float(y)


TWO_ENGINES = [
    Series("clone()", [1, 10, 100], [1e-6, 1e-5, 1e-4], "detachviz"),
    Series("tensor()", [1, 10, 100], [2e-6, 2e-6, 2e-5], "detachviz"),
    Series("clone()", [1, 10, 100], [1e-6, 2e-6, 3e-6], "torch"),
]


def data_points(source: str) -> dict[str, list[tuple[float, float]]]:
    """Drawn data points grouped by colour, in DOT order."""
    out: dict[str, list[tuple[float, float]]] = {}
    for _name, a in nodes(source).items():
        if a.get("shape") == "point" and a.get("style") != "invis":
            out.setdefault(a["color"], []).append(pos(a))
    return out


def texts(source: str) -> list[str]:
    return [
        a["label"].removesuffix("\\l").removesuffix("\\r")
        for a in nodes(source).values()
        if a.get("shape") == "plaintext"
    ]


def test_one_pinned_point_node_per_data_point() -> None:
    src = chart.chart_source(TWO_ENGINES)
    pts = data_points(src)
    assert sorted(len(v) for v in pts.values()) == [3, 6]  # clone() twice, tensor() once
    assert all(a["pos"].endswith("!") for a in nodes(src).values())


def test_positions_are_linear_in_log_scale() -> None:
    src = chart.chart_source([Series("a", [1, 10, 100], [1e-6, 1e-5, 1e-4])])
    (pts,) = data_points(src).values()
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    assert xs[0] < xs[1] < xs[2] and ys[0] < ys[1] < ys[2]
    # Each decade is the same distance on both axes.
    assert xs[1] - xs[0] == pytest.approx(xs[2] - xs[1], abs=0.02)
    assert ys[1] - ys[0] == pytest.approx(ys[2] - ys[1], abs=0.02)
    # 1 .. 100 spans the whole plot width: two decades, no padding.
    assert xs[2] - xs[0] == pytest.approx(chart.PLOT_W, abs=0.02)


def test_a_geometric_midpoint_sits_halfway() -> None:
    src = chart.chart_source([Series("a", [1, math.sqrt(10), 10], [1e-6, 1e-6, 1e-6])])
    (pts,) = data_points(src).values()
    assert pts[1][0] - pts[0][0] == pytest.approx(chart.PLOT_W / 2, abs=0.02)


def test_lines_join_consecutive_points_with_style_per_group() -> None:
    src = chart.chart_source(TWO_ENGINES)
    names = {n: a for n, a in nodes(src).items() if a.get("shape") == "point"}
    data_edges = [(a, b, e) for a, b, e in edges(src) if names[a].get("style") != "invis"]
    assert len(data_edges) == 3 * 2  # three series of three points
    styles = [e["style"] for _, _, e in data_edges]
    assert styles == ["solid"] * 4 + ["dashed"] * 2
    for a, b, e in data_edges:
        assert names[a]["color"] == names[b]["color"] == e["color"]
        assert pos(names[a])[0] < pos(names[b])[0]


def test_colour_per_label_is_shared_across_groups() -> None:
    src = chart.chart_source(TWO_ENGINES)
    colours = list(data_points(src))
    assert colours == [chart.COLORS[0], chart.COLORS[1]]


def test_legend_lists_labels_once_then_groups() -> None:
    src = chart.chart_source(TWO_ENGINES, title="T", xlabel="len(x)", ylabel="runtime [s]")
    words = texts(src)
    legend = [w for w in words if w in ("clone()", "tensor()", "detachviz", "torch")]
    assert legend == ["clone()", "tensor()", "detachviz", "torch"]
    assert {"T", "len(x)", "runtime [s]"} <= set(words)


def test_ticks_are_powers_of_ten_enclosing_the_data() -> None:
    words = texts(chart.chart_source([Series("a", [1, 27], [3e-6, 2e-4])]))
    assert [w for w in words if w.startswith("10")] == [
        "10⁰", "10¹", "10²",  # x: 1 .. 27 -> 10^0 .. 10^2
        "10⁻⁶", "10⁻⁵", "10⁻⁴", "10⁻³",  # y: 3e-6 .. 2e-4 -> 10^-6 .. 10^-3
    ]  # fmt: skip


@pytest.mark.parametrize(("exponent", "text"), [(0, "10⁰"), (1, "10¹"), (-6, "10⁻⁶"), (12, "10¹²")])
def test_power_label(exponent: int, text: str) -> None:
    assert chart.power_label(exponent) == text


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([1, 2187], (0, 4)),
        ([1e-6, 1e-4], (-6, -4)),
        ([3e-6, 3e-6], (-6, -5)),  # one value still gets a decade
        ([10, 100], (1, 2)),  # exact powers are their own bounds
    ],
)
def test_decades(values: list[float], expected: tuple[int, int]) -> None:
    assert chart.decades(values) == expected


def test_points_a_log_axis_cannot_show_are_skipped() -> None:
    src = chart.chart_source([Series("a", [1, 3, 9, 27], [1e-6, 0.0, math.nan, 1e-5])])
    (pts,) = data_points(src).values()
    assert len(pts) == 2


@pytest.mark.parametrize(
    ("series", "message"),
    [
        ([], "at least one series"),
        ([Series("a", [1, 2], [1e-6])], "2 x values but 1 y values"),
        ([Series("a", [1], [0.0])], "no positive, finite data point"),
        ([Series("a", [1], [1.0], g) for g in "abcd"], "at most 3 groups"),
    ],
)
def test_bad_input_is_a_clear_error(series: list[Series], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        chart.chart_source(series)


def test_user_text_is_quoted() -> None:
    src = chart.chart_source([Series('say "hi" \\ <b>', [1, 10], [1e-6, 1e-5])])
    assert 'label="say \\"hi\\" \\\\ <b>\\l"' in src


def test_chart_uses_neato_without_layout() -> None:
    assert chart.layout_command("gp", "svg") == ["gp", "-Kneato", "-n", "-Tsvg"]


def test_svg_renders_with_every_label_and_is_deterministic() -> None:
    kwargs = {"title": "Copying a tensor", "xlabel": "len(x)", "ylabel": "runtime [s]"}
    svg = chart.render_chart(TWO_ENGINES, "svg", **kwargs)
    assert svg == chart.render_chart(TWO_ENGINES, "svg", **kwargs)
    text = svg.decode("utf-8")
    for word in ("clone()", "tensor()", "detachviz", "torch", "Copying a tensor", "len(x)"):
        assert f">{word}</text>" in text
    assert "stroke-dasharray" in text  # the torch line
    assert "Generated by graphviz" not in text  # version comment stripped


@pytest.mark.parametrize(
    ("fmt", "magic"), [("png", b"\x89PNG\r\n\x1a\n"), ("jpg", b"\xff\xd8\xff")]
)
def test_raster_formats(fmt: str, magic: bytes) -> None:
    data = chart.render_chart(TWO_ENGINES, fmt)
    assert data.startswith(magic)
    assert data == chart.render_chart(TWO_ENGINES, fmt)


def test_dot_format_is_the_source() -> None:
    assert chart.render_chart(TWO_ENGINES, "dot") == chart.chart_source(TWO_ENGINES).encode()
