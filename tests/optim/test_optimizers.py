"""Every optimizer against real torch 2.13: the same parameters and gradients give the same
values (bit for bit where no sqrt is involved; torch's MKL sqrt differs from the correctly
rounded one in the last bit), the same state_dict layout, repr, errors and refusals."""

from __future__ import annotations

import numpy as np
import pytest

from detachviz import optim

RNG = np.random.default_rng(3)
P0 = [RNG.standard_normal((4, 3)).astype(np.float32), RNG.standard_normal(3).astype(np.float32)]
GRADS = [
    [RNG.standard_normal(p.shape).astype(np.float32) * (k + 1) * 0.3 for p in P0] for k in range(8)
]

CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "dampening": 0.1, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True, "weight_decay": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1}),
    ("Adamax", {"lr": 0.01, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.01}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.01}),
    ("RAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
]
EXACT = {"SGD"}


def _run(ns, name, kw, steps=8):
    params = [ns.tensor(p.copy(), requires_grad=True) for p in P0]
    opt = getattr(ns.optim, name)(params, **kw)
    for k in range(steps):
        for p, g in zip(params, GRADS[k]):
            p.grad = ns.tensor(g.copy())
        opt.step()
    return params, opt


def _plain(v):
    """A state value as comparable python data."""
    if hasattr(v, "numpy"):
        return ("tensor", str(v.dtype), tuple(v.shape), v.detach().numpy().tolist())
    return v


@pytest.mark.parametrize("name,kw", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_optimizer_follows_torch(T, torch, name, kw):
    ours, opt = _run(T, name, kw)
    theirs, topt = _run(torch, name, kw)
    for p, q in zip(ours, theirs):
        a, b = p.detach().numpy(), q.detach().numpy()
        if name in EXACT:
            assert a.tolist() == b.tolist()
        else:
            np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-7)
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert tsd["param_groups"] == sd["param_groups"]
    assert list(tsd["state"]) == list(sd["state"])
    for i in tsd["state"]:
        assert list(tsd["state"][i]) == list(sd["state"][i])
        for key in tsd["state"][i]:
            a, b = _plain(sd["state"][i][key]), _plain(tsd["state"][i][key])
            assert a[:3] == b[:3]
            np.testing.assert_allclose(a[3], b[3], rtol=2e-6, atol=1e-7)
    assert repr(opt) == repr(topt)


def _to_ours(T, value):
    if hasattr(value, "numpy") and not isinstance(value, T.Tensor):
        return T.tensor(value.numpy().copy())
    if isinstance(value, dict):
        return {k: _to_ours(T, v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_ours(T, v) for v in value]
    return value


@pytest.mark.parametrize("name,kw", [("Adam", {"lr": 0.01}), ("SGD", {"lr": 0.1, "momentum": 0.9})])
def test_a_torch_state_dict_loads_and_training_continues_alike(T, torch, name, kw):
    _, topt = _run(torch, name, kw, steps=4)
    params = [T.tensor(p.copy(), requires_grad=True) for p in P0]
    opt = getattr(optim, name)(params, **kw)
    opt.load_state_dict(_to_ours(T, topt.state_dict()))
    assert opt.state_dict()["param_groups"] == topt.state_dict()["param_groups"]
    state = opt.state[params[0]]
    assert sorted(state) == sorted(topt.state[topt.param_groups[0]["params"][0]])


def test_state_is_empty_until_a_step_and_sgd_without_momentum_keeps_none(T, torch):
    for ns in (T, torch):
        p = ns.zeros(2, requires_grad=True)
        opt = ns.optim.SGD([p], lr=0.1)
        p.grad = ns.ones(2)
        opt.step()
        assert opt.state_dict()["state"] == {}
    p = T.zeros(2, requires_grad=True)
    assert list(optim.Adagrad([p]).state_dict()["state"][0]) == ["step", "sum"]


@pytest.mark.parametrize(
    "make,message",
    [
        (lambda p: optim.RMSprop(p, alpha=-1), "Invalid alpha value: -1"),
        (lambda p: optim.Adadelta(p, rho=1.5), "Invalid rho value: 1.5"),
        (lambda p: optim.NAdam(p, momentum_decay=-1), "Invalid momentum_decay value: -1"),
        (lambda p: optim.Adamax(p, betas=(0.9, 1.0)), "Invalid beta parameter at index 1: 1.0"),
        (lambda p: optim.Adagrad(p, lr_decay=-1), "Invalid lr_decay value: -1"),
        (lambda p: optim.RAdam(p, eps=-1), "Invalid epsilon value: -1"),
        (lambda p: optim.LBFGS(p, lr=-1), "Invalid learning rate: -1"),
    ],
)
def test_invalid_arguments_raise_torchs_message(T, torch, make, message):
    with pytest.raises(ValueError) as ours:
        make([T.zeros(1, requires_grad=True)])
    assert str(ours.value) == message


@pytest.mark.parametrize("flag", ["foreach", "fused", "capturable", "differentiable"])
def test_other_implementations_are_refused_not_ignored(T, flag):
    with pytest.raises(NotImplementedError, match=f"{flag}=True"):
        optim.Adam([T.zeros(1, requires_grad=True)], **{flag: True})


def test_step_hooks_run_around_the_step_and_can_be_removed(T):
    p = T.zeros(1, requires_grad=True)
    opt = optim.SGD([p], lr=1.0)
    seen = []
    pre = opt.register_step_pre_hook(lambda o, a, k: seen.append(("pre", p.item())))
    opt.register_step_post_hook(lambda o, a, k: seen.append(("post", p.item())))
    p.grad = T.ones(1)
    opt.step()
    pre.remove()
    opt.step()
    assert seen == [("pre", 0.0), ("post", -1.0), ("post", -2.0)]


def test_add_param_group_and_named_parameters(T, torch):
    for ns in (T, torch):
        a, b = ns.zeros(1, requires_grad=True), ns.zeros(2, requires_grad=True)
        opt = ns.optim.SGD([("a", a)], lr=0.1)
        with pytest.raises(ValueError) as e:
            opt.add_param_group({"params": [b]})
        assert "with/without names" in str(e.value)
        opt.add_param_group({"params": [("b", b)], "lr": 0.5})
        assert opt.state_dict()["param_groups"][1]["params"] == [1]
        assert opt.state_dict()["param_groups"][1]["param_names"] == ["b"]


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_lbfgs_fits_a_quadratic_as_torch(T, torch, line_search):
    def fit(ns):
        t = ns.linspace(0, 1, 20)
        target = 2.0 * t**2 - 0.5 * t + 0.3
        w = ns.zeros(3, requires_grad=True)
        opt = ns.optim.LBFGS([w], history_size=5, max_iter=10, line_search_fn=line_search)

        def closure():
            opt.zero_grad()
            loss = ((w[0] * t**2 + w[1] * t + w[2] - target) ** 2).mean()
            loss.backward()
            return loss

        losses = [opt.step(closure).item() for _ in range(3)]
        st = opt.state[w]
        return losses, w.detach().numpy(), st["func_evals"], st["n_iter"]

    ours, theirs = fit(T), fit(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-4, atol=1e-7)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-4, atol=1e-6)
    assert ours[2:] == theirs[2:]
