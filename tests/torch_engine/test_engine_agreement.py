"""Two places where the engines used to draw different pictures of the same script: the
nodes a create_graph differentiation makes are dated to its own line on both, and
nn.RNNCell's fused kernel is recorded as the ops it is made of on the torch engine too, so
a cut into the hidden state goes into the same node."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torch_parity as parity  # noqa: E402

PENALTY = """\
import torch
w = torch.randn(3, 3, requires_grad=True)
x = torch.randn(4, 3, requires_grad=True)
y = torch.tanh(x @ w).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
penalty = (g.norm(2, dim=1) - 1).pow(2).mean()
penalty.backward()
"""
BACKWARD = """\
import torch
w = torch.randn(3, requires_grad=True)
(w.sigmoid() * w).sum().backward(create_graph=True)
(w.grad * w.grad).sum().backward()
"""


@pytest.mark.parametrize(
    "source, line, derived",
    [
        (PENALTY, 5, {"TanhBackwardBackward0", "TBackward0"}),
        (BACKWARD, 3, {"SigmoidBackwardBackward0", "AddBackward0", "CopyBackwards"}),
    ],
    ids=["autograd_grad", "backward"],
)
def test_derivative_graph_nodes_are_dated_to_the_differentiation(tmp_path, source, line, derived):
    path = tmp_path / "s.py"
    path.write_text(source)
    ours, real = parity.graph_json(path, "detachviz"), parity.graph_json(path, "torch")
    assert ours == real
    dated = {(n[1], n[4]) for n in ours["nodes"] if n[0] == "function" and n[1] in derived}
    assert {name for name, _ in dated} == derived
    assert all(at == line for _, at in dated)
    # a node of a kind the forward graph has too: one of each, on its own line
    if source is PENALTY:
        assert {n[4] for n in ours["nodes"] if n[1] == "MmBackward0"} == {4, 5}


TBPTT = """\
import torch
from torch import nn
torch.manual_seed(0)
cell = nn.RNNCell(3, 4, bias={bias}, nonlinearity="{nl}")
h = torch.zeros(2, 4)
for t in range(2):
    h = cell(torch.randn(2, 3), h.detach())
"""


@pytest.mark.parametrize("nl", ["tanh", "relu"])
@pytest.mark.parametrize("bias", [True, False])
def test_rnn_cell_cut_goes_into_the_linear_that_reads_h(tmp_path, nl, bias):
    path = tmp_path / "s.py"
    path.write_text(TBPTT.format(nl=nl, bias=bias))
    ours, real = parity.graph_json(path, "detachviz"), parity.graph_json(path, "torch")
    assert ours == real
    cuts = [e for e in real["edges"] if e[2] == "detach"]
    assert cuts and all(e[1][1] == ("AddmmBackward0" if bias else "MmBackward0") for e in cuts)


@pytest.mark.parametrize("nl", ["tanh", "relu"])
def test_rnn_cell_under_the_tracer_computes_torchs_fused_values(nl):
    from detachviz.torch_engine import recording

    torch.manual_seed(0)
    cell = torch.nn.RNNCell(3, 4, nonlinearity=nl)
    x, h = torch.randn(5, 3), torch.randn(5, 4, requires_grad=True)
    fused = cell(x, h)
    (g_fused,) = torch.autograd.grad(fused.sum(), h)
    with recording() as rec:
        traced = cell(x, h)
    (g_traced,) = torch.autograd.grad(traced.sum(), h)
    assert [r.op for r in rec.records][-2:] == ["add", nl]
    assert torch.equal(traced, fused)
    np.testing.assert_array_equal(g_traced.numpy(), g_fused.numpy())
