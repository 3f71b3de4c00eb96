"""torch.optim.Adamax: Adam with the infinity norm (torch's single-tensor update)."""

from __future__ import annotations

from typing import Any

from detachviz import torch as T
from detachviz.optim import kernels as K
from detachviz.optim.optimizer import Optimizer, Tensor, check_adam_args


class Adamax(Optimizer):
    def __init__(
        self,
        params: Any,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_adam_args(lr, eps, betas, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        state = self.state[p]
        if not state:
            state["step"] = T.tensor(0.0)
            state["exp_avg"] = T.zeros_like(p)
            state["exp_inf"] = T.zeros_like(p)
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        state["step"].add_(1)
        if group["weight_decay"] != 0:
            grad = K.add(grad, p, alpha=group["weight_decay"])
        K.lerp_(exp_avg, grad, 1 - beta1)
        K.maximum_(exp_inf.mul_(beta2), grad.abs().add_(group["eps"]))
        clr = group["lr"] / (1 - beta1 ** state["step"].item())
        K.addcdiv_(p, exp_avg, exp_inf, value=-clr)
