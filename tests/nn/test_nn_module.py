"""nn.Module bookkeeping, reprs, Parameter and Linear, compared with torch where installed."""

from __future__ import annotations

import math

import numpy as np
import pytest
from nn_helpers import copy_into_torch, grad_chain, to_numpy

from detachviz import nn


def _build(nn_mod):
    """The same nested model in either namespace (ours or torch.nn)."""

    class Block(nn_mod.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn_mod.Linear(1, 1).bias  # a bare Parameter attribute
            self.fc = nn_mod.Linear(3, 3)
            self.act = nn_mod.Tanh()

        def forward(self, x):
            return self.act(self.fc(x)) * self.scale

    class Net(nn_mod.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn_mod.Sequential(nn_mod.Linear(2, 3), nn_mod.ReLU(), Block())
            self.head = nn_mod.Linear(3, 1, bias=False)
            self.shared = self.head  # a module registered twice appears once

        def forward(self, x):
            return self.head(self.encoder(x))

    return Net()


def test_named_parameters_match_torch_names_and_order(torch):
    ours, theirs = _build(nn), _build(torch.nn)
    names = [n for n, _ in ours.named_parameters()]
    assert names == [n for n, _ in theirs.named_parameters()]
    assert names == [
        "encoder.0.weight",
        "encoder.0.bias",
        "encoder.2.scale",
        "encoder.2.fc.weight",
        "encoder.2.fc.bias",
        "head.weight",
    ]


def test_module_walks_match_torch(torch):
    ours, theirs = _build(nn), _build(torch.nn)
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    order_ours, order_theirs = [], []
    ours.apply(lambda m: order_ours.append(type(m).__name__))
    theirs.apply(lambda m: order_theirs.append(type(m).__name__))
    assert order_ours == order_theirs


def test_module_reprs_match_torch(torch):
    ours, theirs = _build(nn), _build(torch.nn)
    assert repr(ours) == repr(theirs)
    for make in [
        lambda m: m.ReLU(inplace=True),
        lambda m: m.Softmax(dim=1),
        lambda m: m.LogSoftmax(dim=-1),
        lambda m: m.MSELoss(),
        lambda m: m.CrossEntropyLoss(),
        lambda m: m.Sigmoid(),
        lambda m: m.Linear(4, 2, bias=False),
        lambda m: m.Sequential(),
        lambda m: m.ModuleList([m.Tanh(), m.Sequential(m.Identity())]),
    ]:
        assert repr(make(nn)) == repr(make(torch.nn))


def test_parameter_repr_matches_torch(torch, T):
    values = np.array([[0.5, -1.25], [2.0, 3.0]], dtype=np.float32)
    for requires_grad in (True, False):
        ours = nn.Parameter(T.tensor(values), requires_grad=requires_grad)
        theirs = torch.nn.Parameter(torch.tensor(values), requires_grad=requires_grad)
        assert repr(ours) == repr(theirs)


def test_parameter_is_a_leaf_tensor_sharing_storage(T):
    data = T.zeros(3)
    p = nn.Parameter(data)
    assert isinstance(p, T.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    data[0] = 5.0
    assert p.tolist() == [5.0, 0.0, 0.0]
    assert repr(p) == "Parameter containing:\ntensor([5., 0., 0.], requires_grad=True)"


def test_assignment_registers_and_reassignment_moves():
    m = nn.Module()
    m.w = nn.Parameter(None)
    m.sub = nn.Linear(1, 1)
    m.plain = 3
    assert list(m._parameters) == ["w"] and list(m._modules) == ["sub"]
    assert m.plain == 3 and "plain" not in m._parameters
    m.w = None  # allowed: a registered parameter slot can be emptied
    assert m.w is None and list(m.parameters()) == list(m.sub.parameters())
    with pytest.raises(TypeError, match=r"cannot assign 'int' as child module 'sub'"):
        m.sub = 4
    with pytest.raises(AttributeError, match="has no attribute 'missing'"):
        _ = m.missing


def test_assigning_before_init_fails_like_torch():
    class Early(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(1, 1)

    with pytest.raises(AttributeError, match=r"cannot assign module before Module.__init__\(\)"):
        Early()


def test_train_eval_reach_every_submodule():
    net = _build(nn)
    assert all(m.training for m in net.modules())
    assert net.eval() is net and not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())


def test_requires_grad_and_zero_grad(T):
    net = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))
    net(T.ones(3, 2)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not to_numpy(p.grad).any() for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_state_dict_is_detached_and_loads_back(T):
    a, b = nn.Linear(2, 3), nn.Linear(2, 3)
    sd = a.state_dict()
    assert list(sd) == ["weight", "bias"]
    assert not sd["weight"].requires_grad
    assert repr(b.load_state_dict(sd)) == "<All keys matched successfully>"
    assert np.array_equal(to_numpy(b.weight), to_numpy(a.weight))
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "bias"'):
        b.load_state_dict({"weight": sd["weight"]})


def test_sequential_indexing_len_iteration():
    layers = [nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)]
    seq = nn.Sequential(*layers)
    assert len(seq) == 3 and list(seq) == layers
    assert seq[0] is layers[0] and seq[-1] is layers[2]
    sub = seq[1:]
    assert isinstance(sub, nn.Sequential) and list(sub) == layers[1:]
    assert [n for n, _ in sub.named_children()] == ["1", "2"]
    with pytest.raises(IndexError, match="index 3 is out of range"):
        seq[3]
    seq.append(nn.Sigmoid())
    assert len(seq) == 4 and [n for n, _ in seq.named_children()] == ["0", "1", "2", "3"]


@pytest.mark.parametrize(("fan_in", "fan_out"), [(1, 4), (5, 3), (100, 2)])
def test_linear_default_init_bounds(fan_in, fan_out):
    layer = nn.Linear(fan_in, fan_out)
    bound = 1 / math.sqrt(fan_in)
    w, b = to_numpy(layer.weight), to_numpy(layer.bias)
    assert w.shape == (fan_out, fan_in) and b.shape == (fan_out,)
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert repr(layer.weight.dtype) == "torch.float32" and layer.weight.is_leaf


@pytest.mark.parametrize(
    ("shape", "bias"),
    [((4, 3), True), ((3,), True), ((2, 4, 3), True), ((4, 3), False)],
)
@pytest.mark.parametrize("input_requires_grad", [False, True])
def test_linear_graph_matches_torch(torch, T, shape, bias, input_requires_grad):
    ours = nn.Linear(3, 2, bias=bias)
    theirs = torch.nn.Linear(3, 2, bias=bias)
    copy_into_torch(ours, theirs)
    x = np.linspace(-1, 1, int(np.prod(shape)), dtype=np.float32).reshape(shape)
    xo = T.tensor(x, requires_grad=input_requires_grad)
    xt = torch.tensor(x, requires_grad=input_requires_grad)
    yo, yt = ours(xo), theirs(xt)
    assert grad_chain(yo.grad_fn) == grad_chain(yt.grad_fn)
    np.testing.assert_allclose(to_numpy(yo), to_numpy(yt), rtol=1e-6, atol=1e-6)


def test_linear_2d_output_is_addmm_over_t(T):
    layer = nn.Linear(2, 3)
    out = layer(T.ones(4, 2))
    assert grad_chain(out.grad_fn) == [
        "AddmmBackward0",
        "AccumulateGrad",
        "None",
        "TBackward0",
        "AccumulateGrad",
    ]
    assert out.grad_fn.next_functions[0][0].variable is layer.bias


def test_to_dtype_converts_parameters_in_place(T):
    net = nn.Sequential(nn.Linear(2, 2))
    weight = net[0].weight
    before = to_numpy(weight)
    assert net.to("cpu") is net and net.cpu() is net
    assert net.double() is net
    assert net[0].weight is weight and repr(weight.dtype) == "torch.float64"
    assert weight.requires_grad and weight.is_leaf
    np.testing.assert_array_equal(to_numpy(weight), before)
    out = net(T.ones(3, 2, dtype=T.float64))
    assert repr(out.dtype) == "torch.float64"
    net.to(T.float32)
    assert repr(net[0].bias.dtype) == "torch.float32"
