"""The schedulers give torch 2.13's learning rates exactly (==, every step), keep torch's
state_dict keys, and raise torch's errors."""

from __future__ import annotations

import warnings

import pytest

SCHEDULERS = [
    ("StepLR", lambda L, o: L.StepLR(o, 3, gamma=0.5)),
    ("MultiStepLR", lambda L, o: L.MultiStepLR(o, [2, 5, 5], gamma=0.3)),
    ("ExponentialLR", lambda L, o: L.ExponentialLR(o, 0.9)),
    ("CosineAnnealingLR", lambda L, o: L.CosineAnnealingLR(o, 7, eta_min=0.001)),
    ("LambdaLR", lambda L, o: L.LambdaLR(o, [lambda e: 0.95**e, lambda e: 1 / (e + 1)])),
    ("LinearLR", lambda L, o: L.LinearLR(o, start_factor=0.25, total_iters=4)),
    ("OneCycleLR", lambda L, o: L.OneCycleLR(o, max_lr=[1.0, 2.0], total_steps=25)),
    (
        "OneCycleLR-3",
        lambda L, o: L.OneCycleLR(
            o, 1.0, epochs=5, steps_per_epoch=5, three_phase=True, anneal_strategy="linear"
        ),
    ),
    ("ConstantLR", lambda L, o: L.ConstantLR(o, 0.5, total_iters=3)),
    ("MultiplicativeLR", lambda L, o: L.MultiplicativeLR(o, lambda e: 0.95)),
    ("PolynomialLR", lambda L, o: L.PolynomialLR(o, total_iters=6, power=2.0)),
    (
        "ChainedScheduler",
        lambda L, o: L.ChainedScheduler(
            [L.ConstantLR(o, 0.1, total_iters=2), L.ExponentialLR(o, 0.9)]
        ),
    ),
    ("WarmRestarts", lambda L, o: L.CosineAnnealingWarmRestarts(o, 3, T_mult=2, eta_min=0.01)),
    (
        "SequentialLR",
        lambda L, o: L.SequentialLR(
            o, [L.LinearLR(o, 0.1, total_iters=3), L.ExponentialLR(o, 0.8)], [3]
        ),
    ),
]


def _trace(ns, make, steps=24):
    a = ns.zeros(2, requires_grad=True)
    b = ns.zeros(2, requires_grad=True)
    opt = ns.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)
    sched = make(ns.optim.lr_scheduler, opt)
    lrs, momenta = [], []
    for _ in range(steps):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
        momenta.append(opt.param_groups[0]["momentum"])
    state = {k: v for k, v in sched.state_dict().items() if k != "_schedulers"}
    return lrs, momenta, state, sorted(opt.param_groups[1])


@pytest.mark.parametrize("name,make", SCHEDULERS, ids=[s[0] for s in SCHEDULERS])
def test_schedule_equals_torchs(T, torch, name, make):
    assert _trace(T, make) == _trace(torch, make)


def test_reduce_on_plateau_follows_torch(T, torch):
    metrics = [1.0, 0.9, 0.95, 0.96, 0.97, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 0.1]

    def run(ns):
        p = ns.zeros(1, requires_grad=True)
        opt = ns.optim.Adam([p], lr=0.1)
        s = ns.optim.lr_scheduler.ReduceLROnPlateau(
            opt, factor=0.5, patience=2, cooldown=1, min_lr=0.01
        )
        out = []
        for m in metrics:
            s.step(ns.tensor(m))
            out.append((s.get_last_lr(), s.num_bad_epochs, s.cooldown_counter, s.best))
        return out, list(s.state_dict())

    assert run(T) == run(torch)


def test_scheduler_state_dict_round_trips(T):
    L = T.optim.lr_scheduler
    p = T.zeros(1, requires_grad=True)
    opt = T.optim.SGD([p], lr=1.0)
    s = L.StepLR(opt, 2)
    for _ in range(3):
        opt.step()
        s.step()
    saved = s.state_dict()
    opt2 = T.optim.SGD([p], lr=1.0)
    s2 = L.StepLR(opt2, 5)
    s2.load_state_dict(saved)
    assert s2.step_size == 2 and s2.last_epoch == 3 and s2.get_last_lr() == [0.1]


def test_errors_and_warnings_match_torch(T, torch):
    for ns in (T, torch):
        L = ns.optim.lr_scheduler
        opt = ns.optim.SGD([ns.zeros(1, requires_grad=True)], lr=1.0)
        with pytest.raises(ValueError, match="Starting multiplicative factor"):
            L.LinearLR(opt, start_factor=0)
        with pytest.raises(KeyError, match="initial_lr"):
            L.StepLR(opt, 2, last_epoch=3)
        with pytest.raises(TypeError, match="is not an Optimizer"):
            L.StepLR(object(), 2)
        with pytest.raises(ValueError, match="Factor should be < 1.0."):
            L.ReduceLROnPlateau(opt, factor=1.5)
        s = L.StepLR(opt, 2)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            s.step()
        assert any("before `optimizer.step()`" in str(w.message) for w in seen)


def test_old_base_name_still_subclasses(T, torch):
    def run(ns):
        class Halving(ns.optim.lr_scheduler._LRScheduler):
            def get_lr(self):
                return [b * 0.5**self.last_epoch for b in self.base_lrs]

        opt = ns.optim.SGD([ns.zeros(1, requires_grad=True)], lr=0.1)
        s = Halving(opt)
        for _ in range(3):
            opt.step()
            s.step()
        return s.get_last_lr()

    assert run(T) == run(torch)


def test_missing_schedulers_say_so(T):
    with pytest.raises(AttributeError, match="lr_scheduler.CyclicLR is not supported by detachviz"):
        _ = T.optim.lr_scheduler.CyclicLR
