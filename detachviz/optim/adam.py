"""torch.optim.Adam and AdamW (Adam with decoupled weight decay), torch's single-tensor
update step for step: amsgrad, maximize, weight decay (coupled or decoupled)."""

from __future__ import annotations

from typing import Any

from detachviz import torch as T
from detachviz.optim import kernels as K
from detachviz.optim.optimizer import Optimizer, Tensor, check_adam_args


class Adam(Optimizer):
    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        check_adam_args(lr, eps, betas, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        state = self.state[p]
        if not state:
            state["step"] = T.tensor(0.0)
            state["exp_avg"] = T.zeros_like(p)
            state["exp_avg_sq"] = T.zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = T.zeros_like(p)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        state["step"].add_(1)
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * weight_decay)
            else:
                grad = K.add(grad, p, alpha=weight_decay)
        K.lerp_(exp_avg, grad, 1 - beta1)
        K.addcmul_(exp_avg_sq.mul_(beta2), grad, grad, value=1 - beta2)
        step = state["step"].item()
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2**0.5
        if group["amsgrad"]:
            K.maximum_(state["max_exp_avg_sq"], exp_avg_sq)
            denom = (state["max_exp_avg_sq"].sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        K.addcdiv_(p, exp_avg, denom, value=-step_size)


class AdamW(Adam):
    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )
