"""torch.optim.Adagrad: lr decay, initial accumulator, weight decay, maximize (torch's
single-tensor update step for step; state is created in the constructor, as torch does)."""

from __future__ import annotations

from typing import Any

from detachviz import torch as T
from detachviz.optim import kernels as K
from detachviz.optim.optimizer import Optimizer, Tensor, check_range


class Adagrad(Optimizer):
    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        check_range("learning rate", lr, lr >= 0.0)
        check_range("lr_decay value", lr_decay, lr_decay >= 0.0)
        check_range("weight_decay value", weight_decay, weight_decay >= 0.0)
        check_range(
            "initial_accumulator_value value",
            initial_accumulator_value,
            initial_accumulator_value >= 0.0,
        )
        check_range("epsilon value", eps, eps >= 0.0)
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = T.tensor(0.0)
                state["sum"] = T.full_like(p, initial_accumulator_value)

    def _update(self, p: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        state = self.state[p]
        if not state:
            state["step"] = T.tensor(0.0)
            state["sum"] = T.full_like(p, self.defaults["initial_accumulator_value"])
        state["step"].add_(1)
        step = state["step"].item()
        if group["weight_decay"] != 0:
            grad = K.add(grad, p, alpha=group["weight_decay"])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        K.addcmul_(state["sum"], grad, grad, value=1)
        std = state["sum"].sqrt().add_(group["eps"])
        K.addcdiv_(p, grad, std, value=-clr)
