"""torch.optim.lr_scheduler: the schedulers, computing each learning rate with torch 2.13's
formulas in the same float order (most are recursive: the new lr from the group's current
one), so `get_last_lr()` equals torch's to the last bit.

The base class and its bookkeeping live in scheduler_base; warnings go to stderr with torch's
text.
"""

from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from detachviz import torch as T
from detachviz.engine import namespace as _ns
from detachviz.optim.optimizer import Optimizer
from detachviz.optim.scheduler_base import (
    EPOCH_DEPRECATION_WARNING,
    LRScheduler,
    check_optimizer,
    group_values,
    set_group_value,
)

__all__ = [
    "ChainedScheduler",
    "ConstantLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "LinearLR",
    "MultiStepLR",
    "MultiplicativeLR",
    "OneCycleLR",
    "PolynomialLR",
    "ReduceLROnPlateau",
    "SequentialLR",
    "StepLR",
]


class LambdaLR(LRScheduler):
    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        self.optimizer = optimizer
        n = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n:
                raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        self._warn_outside_step()
        return [base * f(self.last_epoch) for f, base in zip(self.lr_lambdas, self.base_lrs)]

    def state_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        out["lr_lambdas"] = [
            None if isinstance(f, types.FunctionType) else dict(f.__dict__) for f in self.lr_lambdas
        ]
        return out

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = lambdas
        for f, saved in zip(self.lr_lambdas, lambdas):
            if saved is not None:
                f.__dict__.update(saved)


class _LRScheduler(LRScheduler):
    """The old name of LRScheduler, still subclassed by older code."""


def _lambdas(optimizer: Optimizer, lr_lambda: Any) -> list[Any]:
    n = len(optimizer.param_groups)
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * n
    if len(lr_lambda) != n:
        raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
    return list(lr_lambda)


class MultiplicativeLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, lr_lambda: Any, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        for f in self.lr_lambdas:
            if not callable(f):
                raise TypeError(f"lr_lambda should be a function, but got {type(f).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        self._warn_outside_step()
        if self._is_initial:
            return group_values(self.optimizer)
        groups = self.optimizer.param_groups
        return [g["lr"] * f(self.last_epoch) for f, g in zip(self.lr_lambdas, groups)]

    # the lambdas are saved as LambdaLR saves them (functions as None)
    state_dict = LambdaLR.state_dict
    load_state_dict = LambdaLR.load_state_dict


class ConstantLR(LRScheduler):
    def __init__(
        self,
        optimizer: Optimizer,
        factor: float = 1.0 / 3,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        self._warn_outside_step()
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [g["lr"] * self.factor for g in groups]
        if self.last_epoch != self.total_iters:
            return group_values(self.optimizer)
        return [g["lr"] * (1.0 / self.factor) for g in groups]

    def _closed_form_lr(self) -> list[Any]:
        after = self.last_epoch >= self.total_iters
        return [b * (self.factor + after * (1 - self.factor)) for b in self.base_lrs]


class PolynomialLR(LRScheduler):
    def __init__(
        self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1
    ) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        self._warn_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return group_values(self.optimizer)
        e, n = self.last_epoch, self.total_iters
        decay = ((1.0 - e / n) / (1.0 - (e - 1) / n)) ** self.power
        return [g["lr"] * decay for g in self.optimizer.param_groups]

    def _closed_form_lr(self) -> list[Any]:
        left = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [b * left**self.power for b in self.base_lrs]


class StepLR(LRScheduler):
    def __init__(
        self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return group_values(self.optimizer)
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _closed_form_lr(self) -> list[Any]:
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    def __init__(
        self,
        optimizer: Optimizer,
        milestones: Iterable[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        self._warn_outside_step()
        if self.last_epoch not in self.milestones:
            return group_values(self.optimizer)
        k = self.milestones[self.last_epoch]
        return [g["lr"] * self.gamma**k for g in self.optimizer.param_groups]

    def _closed_form_lr(self) -> list[Any]:
        milestones = sorted(self.milestones.elements())
        return [b * self.gamma ** bisect_right(milestones, self.last_epoch) for b in self.base_lrs]


class LinearLR(LRScheduler):
    def __init__(
        self,
        optimizer: Optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or "
                "equal to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        self._warn_outside_step()
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [g["lr"] * self.start_factor for g in groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return group_values(self.optimizer)
        span = self.end_factor - self.start_factor
        factor = 1.0 + span / (self.total_iters * self.start_factor + (self.last_epoch - 1) * span)
        return [g["lr"] * factor for g in groups]

    def _closed_form_lr(self) -> list[Any]:
        span = self.end_factor - self.start_factor
        at = min(self.total_iters, self.last_epoch)
        return [b * (self.start_factor + span * at / self.total_iters) for b in self.base_lrs]


class ExponentialLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        self._warn_outside_step()
        if self._is_initial:
            return group_values(self.optimizer)
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _closed_form_lr(self) -> list[Any]:
        return [b * self.gamma**self.last_epoch for b in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    def __init__(
        self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        self._warn_outside_step()
        groups, eta, t_max, e = (
            self.optimizer.param_groups,
            self.eta_min,
            self.T_max,
            self.last_epoch,
        )
        if self._is_initial:
            return group_values(self.optimizer)
        if self._step_count == 1 and e > 0:
            return [
                eta + (b - eta) * (1 + math.cos(e * math.pi / t_max)) / 2 for b in self.base_lrs
            ]
        if (e - 1 - t_max) % (2 * t_max) == 0:
            return [
                g["lr"] + (b - eta) * (1 - math.cos(math.pi / t_max)) / 2
                for b, g in zip(self.base_lrs, groups)
            ]
        ratio = (1 + math.cos(math.pi * e / t_max)) / (1 + math.cos(math.pi * (e - 1) / t_max))
        return [ratio * (g["lr"] - eta) + eta for g in groups]

    def _closed_form_lr(self) -> list[Any]:
        eta = self.eta_min
        cos = 1 + math.cos(math.pi * self.last_epoch / self.T_max)
        return [eta + (b - eta) * cos / 2 for b in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    def __init__(
        self,
        optimizer: Optimizer,
        T_0: int,
        T_mult: int = 1,
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        self._warn_outside_step()
        eta = self.eta_min
        cos = 1 + math.cos(math.pi * self.T_cur / self.T_i)
        return [eta + (b - eta) * cos / 2 for b in self.base_lrs]

    def step(self, epoch: Any = None) -> None:
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        elif epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult**n
        else:
            self.T_i = self.T_0
            self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            set_group_value(group, "lr", lr)
        self._last_lr = group_values(self.optimizer)


def _per_group(name: str, optimizer: Optimizer, value: Any) -> list[Any]:
    n = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. "
                f"{name} has {len(value)} values, param_groups has {n}."
            )
        return [v.clone() if isinstance(v, T.Tensor) else v for v in value]
    return [value] * n


class OneCycleLR(LRScheduler):
    def __init__(
        self,
        optimizer: Optimizer,
        max_lr: float | list[float],
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: str = "cos",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.85,
        max_momentum: float | list[float] = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
    ) -> None:
        check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(
                    f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}"
                )
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        up = float(pct_start * self.total_steps) - 1
        last = self.total_steps - 1
        if three_phase:
            self._schedule_phases = [
                _phase(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(
                    float(2 * pct_start * self.total_steps) - 2,
                    "max_lr",
                    "initial_lr",
                    "base_momentum",
                    "max_momentum",
                ),
                _phase(last, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
            ]
        else:
            self._schedule_phases = [
                _phase(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(last, "max_lr", "min_lr", "base_momentum", "max_momentum"),
            ]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._anneal_func_type = anneal_strategy
        max_lrs = _per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for group, top in zip(optimizer.param_groups, max_lrs):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in optimizer.defaults
            tops = _per_group("max_momentum", optimizer, max_momentum)
            bases = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for top, base, group in zip(tops, bases, optimizer.param_groups):
                    self._set_momentum(group, top)
                    group["max_momentum"] = top
                    group["base_momentum"] = base
        super().__init__(optimizer, last_epoch)

    def _set_momentum(self, group: dict[str, Any], value: Any) -> None:
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def _anneal(self, start: Any, end: Any, pct: float) -> Any:
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list[Any]:
        self._warn_outside_step()
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(
                f"Tried to step {step} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        lrs = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end = phase["end_step"]
                if step <= end or i == len(self._schedule_phases) - 1:
                    pct = (step - start) / (end - start)
                    lrs.append(self._anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct))
                    if self.cycle_momentum:
                        momentum = self._anneal(
                            group[phase["start_momentum"]], group[phase["end_momentum"]], pct
                        )
                        self._set_momentum(group, momentum)
                    break
                start = phase["end_step"]
        return lrs


def _phase(end_step: float, start_lr: str, end_lr: str, start_m: str, end_m: str) -> dict:
    return {
        "end_step": end_step,
        "start_lr": start_lr,
        "end_lr": end_lr,
        "start_momentum": start_m,
        "end_momentum": end_m,
    }


class SequentialLR(LRScheduler):
    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: list[LRScheduler],
        milestones: list[int],
        last_epoch: int = -1,
    ) -> None:
        name = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(f"{name} expects at least one scheduler, but got no scheduler.")
        _check_same_optimizer(name, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                f"than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to {len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            set_group_value(group, "lr", group["initial_lr"])
        for s in schedulers:  # undo the initial step each scheduler took when it was made
            s.last_epoch -= 1
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def step(self) -> None:  # type: ignore[override]
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        out["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return out

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        saved = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        state_dict["_schedulers"] = saved
        for s, sd in zip(self._schedulers, saved):
            s.load_state_dict(sd)


class ChainedScheduler(LRScheduler):
    """Steps several schedulers of one optimizer together, each on the lr the previous left."""

    def __init__(self, schedulers: list[LRScheduler], optimizer: Optimizer | None = None) -> None:
        name = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(
                f"{name} expects at least one scheduler to be chained, but got no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        _check_same_optimizer(name, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = group_values(schedulers[-1].optimizer)

    def step(self) -> None:  # type: ignore[override]
        for s in self._schedulers:
            s.step()
        self._last_lr = group_values(self._schedulers[-1].optimizer)

    def state_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        out["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return out

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        saved = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        state_dict["_schedulers"] = saved
        for s, sd in zip(self._schedulers, saved):
            s.load_state_dict(sd)


def _check_same_optimizer(name: str, optimizer: Any, schedulers: list[Any]) -> None:
    for i, s in enumerate(schedulers):
        if not hasattr(s, "optimizer"):
            raise TypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
        if isinstance(s, ReduceLROnPlateau):
            raise ValueError(
                f"{name} does not support `ReduceLROnPlateau` scheduler as it requires "
                "additional kwargs to be specified when calling `step`, but got one at "
                f"index {i} in the given schedulers sequence."
            )
        if optimizer != s.optimizer:
            raise ValueError(
                f"{name} expects all schedulers to belong to the same optimizer, but got "
                f"scheduler {type(s).__name__} at index {i} has {s.optimizer}, which is "
                f"different from {type(optimizer).__name__}."
            )


class ReduceLROnPlateau(LRScheduler):
    def __init__(
        self,
        optimizer: Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: list[float] | float = 0,
        eps: float = 1e-8,
    ) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        check_optimizer(optimizer)
        self.optimizer = optimizer
        n = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n:
                raise ValueError(f"expected {n} min_lrs, got {len(min_lr)}")
            self.default_min_lr: Any = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * n
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = group_values(optimizer)
        self._init_is_better(mode, threshold, threshold_mode)
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min":
            if self.threshold_mode == "rel":
                return a < best * (1.0 - self.threshold)
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def step(self, metrics: Any, epoch: int | None = None) -> None:  # type: ignore[override]
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = group_values(self.optimizer)

    def _reduce_lr(self) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs "
                    f"from when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), "
                    "usually due to a new param group being added to the optimizer. Please "
                    "modify the `min_lrs` field to match the length of the `optimizer` param "
                    "groups."
                )
            self.min_lrs = [self.default_min_lr] * len(groups)
        for i, group in enumerate(groups):
            old = float(group["lr"])
            new = max(old * self.factor, self.min_lrs[i])
            if old - new > self.eps:
                set_group_value(group, "lr", new)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)


# a name torch has and detachviz lacks: "torch.optim.lr_scheduler.X is not supported by detachviz"
__getattr__ = _ns.module_getattr(globals(), "torch.optim.lr_scheduler", {}, methods=False)
