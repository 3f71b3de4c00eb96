"""LRScheduler, the base of every torch.optim.lr_scheduler scheduler, and the helpers they
share: `initial_lr` bookkeeping, the initial step in "initial mode", torch's warnings, and
`state_dict()` as every attribute but the optimizer (so a state saved under torch loads)."""

from __future__ import annotations

import warnings
from typing import Any

from detachviz import torch as T
from detachviz.optim.optimizer import Optimizer

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


def group_values(optimizer: Optimizer, key: str = "lr") -> list[Any]:
    return [
        g[key].clone() if isinstance(g[key], T.Tensor) else g[key] for g in optimizer.param_groups
    ]


def set_group_value(group: dict[str, Any], key: str, value: Any) -> None:
    if isinstance(group[key], T.Tensor):
        group[key].fill_(value.item() if isinstance(value, T.Tensor) else value)
    else:
        group[key] = value


def check_optimizer(optimizer: Any) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


class LRScheduler:
    _is_initial: bool = False
    _get_lr_called_within_step: bool = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                lr = group["lr"]
                group.setdefault("initial_lr", lr.clone() if isinstance(lr, T.Tensor) else lr)
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run "
                        "(not recommended)"
                    )
        self.base_lrs = group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self) -> None:
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list[Any]:
        raise NotImplementedError

    def get_last_lr(self) -> list[Any]:
        return self._last_lr

    def _warn_outside_step(self) -> None:
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, please use "
                "`get_last_lr()`.",
                UserWarning,
                stacklevel=3,
            )

    def step(self, epoch: int | None = None) -> None:
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(
                "Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
                "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
                "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                "will result in PyTorch skipping the first value of the learning rate "
                "schedule. See more details at "
                "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                UserWarning,
                stacklevel=2,
            )
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            set_group_value(group, "lr", lr)
        self._last_lr = group_values(self.optimizer)

    def state_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
