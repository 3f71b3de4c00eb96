"""Cut and write labels are never crossed by another edge nor covered by a box, checked on the
laid-out svg of real programs (the gallery, the examples, GAN / TBPTT / attention scripts) with
both layout programs: every label's text box against every other edge's path and every box."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path

import pytest

from detachviz import render
from detachviz.graph.model import Graph
from detachviz.pipeline import Request, build
from detachviz.render import theme
from detachviz.render.options import DrawOptions

ROOT = Path(__file__).resolve().parents[2]
NS = {"s": "http://www.w3.org/2000/svg"}
SCRIPTS = sorted(
    str(p.relative_to(ROOT))
    for p in [*(ROOT / "docs" / "gallery").glob("*.py"), *(ROOT / "docs" / "examples").glob("*.py")]
    # collapsed_10k: eight boxes and no label, 10,000 steps to run; no_root: nothing to draw
    if p.name not in ("collapsed_10k.py", "no_root.py")
) + [
    f"tests/oracle/scripts/{name}.py"
    for name in (
        "nn_gan_style_detach",
        "prog_gp_gan_two_losses",
        "prog_gp_wgan_gradient_penalty",
        "prog_attn_weights_printout",
        "prog_rnn_tbptt_detach",
    )
]
RENDERERS = ["graphviz-pure"] + (["dot"] if shutil.which("dot") else [])
Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in svg points


@cache
def model(script: str) -> Graph:
    data, _ = build(str(ROOT / script), Request(allow_errors=True), "json")
    return Graph.from_dict(json.loads(data))


def _points(text: str) -> list[tuple[float, float]]:
    nums = [float(v) for v in text.replace(",", " ").replace("M", " ").replace("C", " ").split()]
    return list(zip(nums[::2], nums[1::2]))


def _bezier(points: list[tuple[float, float]], steps: int = 24) -> list[tuple[float, float]]:
    """A graphviz edge path (M p0 C p1 p2 p3 C ...) as a fine polyline."""
    out = [points[0]]
    for i in range(1, len(points) - 2, 3):
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = points[i - 1 : i + 3]
        for s in range(1, steps + 1):
            t = s / steps
            u = 1 - t
            out.append(
                (
                    u**3 * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t**3 * x3,
                    u**3 * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t**3 * y3,
                )
            )
    return out


def _text_box(texts: list[ET.Element]) -> Box:
    """The box around a label's lines (Courier: every glyph 0.6 em wide)."""
    boxes = []
    for t in texts:
        size = float(t.get("font-size", "9"))
        width = 0.6 * size * len(t.text or "")
        x, y = float(t.get("x", 0)), float(t.get("y", 0))
        boxes.append((x - width / 2, y - 0.8 * size, x + width / 2, y + 0.2 * size))
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _segment_hits(a: tuple[float, float], b: tuple[float, float], box: Box) -> bool:
    """Whether the segment a-b passes through `box` (Liang-Barsky clipping)."""
    x0, y0, x1, y1 = box
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in ((-dx, a[0] - x0), (dx, x1 - a[0]), (-dy, a[1] - y0), (dy, y1 - a[1])):
        if p == 0:
            if q < 0:
                return False
        elif p < 0:
            t0 = max(t0, q / p)
        else:
            t1 = min(t1, q / p)
        if t0 > t1:
            return False
    return True


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def labels_and_obstacles(svg: bytes) -> tuple[dict[str, Box], list[tuple[str, list]], dict]:
    """The svg's labels (id -> text box: label nodes, and any cut or write text left on an
    edge), its edge paths (title, polyline) and its boxes (id -> box)."""
    tree = ET.fromstring(svg)
    labels: dict[str, Box] = {}
    boxes: dict[str, Box] = {}
    edges: list[tuple[str, list]] = []
    for g in tree.iter(f"{{{NS['s']}}}g"):
        title = g.findtext("s:title", default="", namespaces=NS)
        texts = g.findall("s:text", NS)
        if g.get("class") == "node":
            shape = g.find("s:polygon", NS)
            if theme.LABEL_ID_SEP in title or (title.endswith("_label") and shape is None):
                labels[title] = _text_box(texts)
            elif shape is not None:
                pts = _points(shape.get("points", ""))
                xs, ys = [p[0] for p in pts], [p[1] for p in pts]
                boxes[title] = (min(xs), min(ys), max(xs), max(ys))
        elif g.get("class") == "edge":
            for path in g.findall("s:path", NS):
                edges.append((title, _bezier(_points(path.get("d", "")))))
            if texts and (texts[0].text or "").startswith((theme.CUT_PREFIX, "in-place")):
                labels[title] = _text_box(texts)
    return labels, edges, boxes


def crossings(svg: bytes) -> list[str]:
    """Every edge that passes through a label not its own, and every box covering one."""
    labels, edges, boxes = labels_and_obstacles(svg)
    found = []
    for name, box in labels.items():
        inner = (box[0] + 1, box[1] + 1, box[2] - 1, box[3] - 1)  # a touch is not a cross
        for title, line in edges:
            if name in title.split("->") or title == name:
                continue  # its own edge's two halves end at the label
            if any(_segment_hits(a, b, inner) for a, b in zip(line, line[1:])):
                found.append(f"edge {title} crosses label {name}")
        found += [f"box {n} covers label {name}" for n, b in boxes.items() if _overlap(b, inner)]
    return found


def test_the_check_sees_a_crossing():
    """The check itself: a line through a label box, and a box over it, are found."""
    svg = f"""<svg xmlns="{NS["s"]}"><g class="graph">
      <g class="node"><title>n1~n2~0</title>
        <text x="50" y="50" font-size="9">cut: detach()</text></g>
      <g class="edge"><title>n3-&gt;n4</title><path d="M0,46C30,46 70,46 100,46"/></g>
      <g class="node"><title>n5</title><polygon points="40,40 60,40 60,60 40,60 40,40"/></g>
    </g></svg>""".encode()
    assert crossings(svg) == ["edge n3->n4 crosses label n1~n2~0", "box n5 covers label n1~n2~0"]
    clear = svg.replace(b"M0,46C30,46 70,46 100,46", b"M0,80C30,80 70,80 100,80")
    assert crossings(clear) == ["box n5 covers label n1~n2~0"]


@pytest.mark.parametrize("renderer", RENDERERS)
# NOTE: not called `script`: the oracle's conftest runs every collected `script` parameter.
@pytest.mark.parametrize("program", SCRIPTS)
def test_no_edge_or_box_crosses_a_cut_or_write_label(program, renderer):
    graph = model(program)
    options = DrawOptions(renderer=renderer, legend=True)
    svg = render.draw(graph, "svg", options)
    labelled = sum(1 for e in graph.edges if e.cut or e.write)
    labels, _, _ = labels_and_obstacles(svg)
    assert len(labels) >= min(labelled, 1)  # the check has labels to look at where cuts are
    assert crossings(svg) == []
