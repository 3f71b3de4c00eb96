"""torch.optim.RAdam: Adam with the variance rectification term (torch's single-tensor update
step for step)."""

from __future__ import annotations

from typing import Any

from detachviz import torch as T
from detachviz.optim import kernels as K
from detachviz.optim.optimizer import Optimizer, Tensor, check_adam_args


class RAdam(Optimizer):
    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_adam_args(lr, eps, betas, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        lr, weight_decay = group["lr"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        state = self.state[p]
        if not state:
            state["step"] = T.tensor(0.0)
            state["exp_avg"] = T.zeros_like(p)
            state["exp_avg_sq"] = T.zeros_like(p)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        state["step"].add_(1)
        step = state["step"].item()
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * weight_decay)
            else:
                grad = K.add(grad, p, alpha=weight_decay)
        K.lerp_(exp_avg, grad, 1 - beta1)
        K.addcmul_(exp_avg_sq.mul_(beta2), grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        corrected = exp_avg / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > 5.0:
            adaptive = (bias_correction2**0.5) / exp_avg_sq.sqrt().add_(group["eps"])
            rect = (
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            ) ** 0.5
            K.add_(p, corrected * lr * adaptive * rect, alpha=-1.0)
        else:
            K.add_(p, corrected * lr, alpha=-1.0)
