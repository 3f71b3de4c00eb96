"""optim.SGD / Adam: training an MLP gives torch's losses; bookkeeping matches torch."""

from __future__ import annotations

import numpy as np
import pytest
from nn_helpers import copy_into_torch, to_numpy

from detachviz import nn, optim

RNG = np.random.default_rng(7)
XS = RNG.standard_normal((8, 3)).astype(np.float32)
YS = RNG.standard_normal((8, 2)).astype(np.float32)
LABELS = np.array([0, 1, 1, 0, 1, 0, 0, 1])


def _mlp(nn_mod):
    return nn_mod.Sequential(
        nn_mod.Linear(3, 5), nn_mod.Tanh(), nn_mod.Linear(5, 4), nn_mod.ReLU(), nn_mod.Linear(4, 2)
    )


OPTIMIZERS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True}),
    ("SGD", {"lr": 0.05, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.02, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.05}),
    ("Adam", {"lr": 0.01, "amsgrad": True}),
    ("AdamW", {"lr": 0.01}),
]
LOSSES = ["mse", "cross_entropy"]


def _train(ns, nn_mod, optim_mod, model, name, kw, loss_name, steps=6):
    opt = getattr(optim_mod, name)(model.parameters(), **kw)
    x = ns.tensor(XS)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        out = model(x)
        if loss_name == "mse":
            loss = nn_mod.MSELoss()(out, ns.tensor(YS))
        else:
            loss = nn_mod.CrossEntropyLoss()(out, ns.tensor(LABELS))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("loss_name", LOSSES)
@pytest.mark.parametrize(("name", "kw"), OPTIMIZERS, ids=[f"{n}-{kw}" for n, kw in OPTIMIZERS])
def test_training_matches_torch(T, torch, name, kw, loss_name):
    ours, theirs = _mlp(nn), _mlp(torch.nn)
    copy_into_torch(ours, theirs)
    got = _train(T, nn, optim, ours, name, kw, loss_name)
    want = _train(torch, torch.nn, torch.optim, theirs, name, kw, loss_name)
    np.testing.assert_allclose(got, want, atol=1e-5, rtol=0)
    assert got[-1] != got[0]  # it did train
    for p, q in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(to_numpy(p), to_numpy(q), atol=1e-5, rtol=0)


def test_sgd_by_hand(T):
    p = nn.Parameter(T.tensor([1.0, -2.0]))
    opt = optim.SGD([p], lr=0.5, momentum=0.5)
    for _ in range(2):
        opt.zero_grad()
        (p * T.tensor([2.0, 4.0])).sum().backward()
        opt.step()
    # grad is constant g = [2, 4]; buf: g, then 0.5 g + g = 1.5 g; p -= 0.5 * (g + 1.5 g)
    assert p.tolist() == [1.0 - 1.25 * 2.0, -2.0 - 1.25 * 4.0]


@pytest.mark.parametrize(
    ("name", "kw"), [("SGD", {"lr": 0.1}), ("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {})]
)
def test_step_bumps_version_like_torch(T, torch, name, kw):
    ours = nn.Parameter(T.ones(2))
    theirs = torch.nn.Parameter(torch.ones(2))
    versions = []
    for p, mod in ((ours, optim), (theirs, torch.optim)):
        opt = getattr(mod, name)([p], **kw)
        before = p._version
        for _ in range(2):
            (p * p).sum().backward()
            opt.step()
        versions.append(p._version - before)
    assert versions[0] == versions[1]
    assert versions[0] >= 2


def test_step_skips_params_without_grad(T):
    a, b = nn.Parameter(T.ones(1)), nn.Parameter(T.ones(1))
    opt = optim.SGD([a, b], lr=1.0)
    (a * 3).sum().backward()
    opt.step()
    assert a.tolist() == [-2.0] and b.tolist() == [1.0] and b.grad is None


def test_zero_grad_modes(T):
    p = nn.Parameter(T.ones(2))
    opt = optim.SGD([p], lr=0.1)
    (p * 2).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert p.grad.tolist() == [0.0, 0.0] and not p.grad.requires_grad
    opt.zero_grad()
    assert p.grad is None


def test_param_groups_and_repr_match_torch(T, torch):
    ours = optim.SGD(
        [{"params": [nn.Parameter(T.ones(1))]}, {"params": [nn.Parameter(T.ones(1))], "lr": 0.5}],
        lr=0.1,
        momentum=0.9,
    )
    theirs = torch.optim.SGD(
        [
            {"params": [torch.nn.Parameter(torch.ones(1))]},
            {"params": [torch.nn.Parameter(torch.ones(1))], "lr": 0.5},
        ],
        lr=0.1,
        momentum=0.9,
    )
    assert [g["lr"] for g in ours.param_groups] == [0.1, 0.5]
    assert repr(ours) == repr(theirs)
    adam_ours = optim.Adam([nn.Parameter(T.ones(1))])
    adam_theirs = torch.optim.Adam([torch.nn.Parameter(torch.ones(1))])
    assert repr(adam_ours) == repr(adam_theirs)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda T: optim.SGD([], lr=0.1), "optimizer got an empty parameter list"),
        (lambda T: optim.SGD([nn.Parameter(T.ones(1))], lr=-1), "Invalid learning rate: -1"),
        (
            lambda T: optim.SGD([nn.Parameter(T.ones(1))], lr=0.1, nesterov=True),
            "Nesterov momentum requires a momentum and zero dampening",
        ),
        (
            lambda T: optim.Adam([nn.Parameter(T.ones(1))], betas=(1.0, 0.9)),
            "Invalid beta parameter at index 0: 1.0",
        ),
    ],
)
def test_invalid_arguments_raise_torchs_errors(T, make, message):
    with pytest.raises(ValueError, match=message):
        make(T)


def test_optimizer_refuses_a_bare_tensor(T):
    with pytest.raises(TypeError, match="should be an iterable of Tensors or dicts"):
        optim.SGD(nn.Parameter(T.ones(1)), lr=0.1)


def _gan_step(ns, nn_mod, optim_mod, g_model, d_model):
    """One discriminator step on a detached fake, as GAN tutorials write it."""
    opt_d = optim_mod.SGD(d_model.parameters(), lr=0.1)
    z = ns.tensor(XS[:4, :2])
    fake = g_model(z)
    opt_d.zero_grad()
    d_loss = nn_mod.MSELoss()(d_model(fake.detach()), ns.zeros(4, 1))
    d_loss.backward()
    opt_d.step()
    return d_loss.item()


def _gan(nn_mod):
    g = nn_mod.Sequential(nn_mod.Linear(2, 3), nn_mod.Tanh())
    d = nn_mod.Sequential(nn_mod.Linear(3, 1), nn_mod.Sigmoid())
    return g, d


def test_gan_detach_leaves_generator_grads_none(T, torch):
    (g, d), (tg, td) = _gan(nn), _gan(torch.nn)
    copy_into_torch(g, tg)
    copy_into_torch(d, td)
    ours = _gan_step(T, nn, optim, g, d)
    theirs = _gan_step(torch, torch.nn, torch.optim, tg, td)
    assert abs(ours - theirs) < 1e-6
    assert all(p.grad is None for p in g.parameters())
    assert all(p.grad is None for p in tg.parameters())
    assert all(p.grad is not None for p in d.parameters())
    for p, q in zip(d.parameters(), td.parameters()):
        np.testing.assert_allclose(to_numpy(p), to_numpy(q), atol=1e-6)
