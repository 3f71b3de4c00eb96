"""The gallery's real-program pictures, asserted on the graph model and on what is drawn:
cuts and (no) writes in a training loop, torch's double-backward nodes, a 10,000-node RNN
collapsed to a handful of boxes, and both ways of drawing one collapsed box in full."""

from __future__ import annotations

import json
from pathlib import Path

from detachviz.graph import vocab
from detachviz.graph.model import Graph
from detachviz.pipeline import Request, build
from detachviz.render.dot import drawn_graph
from detachviz.render.options import DrawOptions

GALLERY = Path(__file__).resolve().parents[2] / "docs" / "gallery"


def model(name: str, *roots: str) -> dict:
    data, failure = build(str(GALLERY / name), Request(roots=roots), "json")
    assert failure == ""
    return json.loads(data)


def test_tbptt_with_adam_has_its_cut_and_no_write_edges():
    g = model("tbptt_adam.py")
    cuts = [e for e in g["edges"] if e.get("cut")]
    assert [(e["cut"], e["line"]) for e in cuts] == [(vocab.DETACH, 18)]
    assert [e for e in g["edges"] if e.get("write")] == []  # opt.step() wrote after backward
    first = model("tbptt_adam.py", "losses[0]")  # the first chunk: nothing behind a cut
    assert [e for e in first["edges"] if e.get("cut") or e.get("write")] == []


def test_gradient_penalty_draws_torchs_double_backward_node():
    g = model("gradient_penalty.py")
    labels = {n["label"] for n in g["nodes"]}
    assert {"TanhBackwardBackward0", "LinalgVectorNormBackward0"} <= labels
    assert [e["cut"] for e in g["edges"] if e.get("cut")] == [vocab.DETACH]


def test_ten_thousand_node_rnn_is_drawn_as_eight_boxes():
    g = Graph.from_dict(model("collapsed_10k.py"))
    assert sum(n.kind == "function" for n in g.nodes) == 10_001  # 4 per step, and the sum
    drawn = drawn_graph(g)
    assert len(drawn.graph.nodes) == 8
    assert sorted(drawn.runs.values()) == [2500, 2500, 2500, 2500]
    full = drawn_graph(g, DrawOptions(expand_nodes=("h",)))  # the tanh box names the loop
    assert len(full.graph.nodes) == 10_004
