"""torch.optim.NAdam: Adam with Nesterov momentum and momentum decay (torch's single-tensor
update step for step; `mu_product` is a float32 tensor, as in torch)."""

from __future__ import annotations

from typing import Any

from detachviz import torch as T
from detachviz.optim import kernels as K
from detachviz.optim.optimizer import Optimizer, Tensor, check_adam_args, check_range


class NAdam(Optimizer):
    def __init__(
        self,
        params: Any,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_adam_args(lr, eps, betas, weight_decay)
        check_range("momentum_decay value", momentum_decay, momentum_decay >= 0.0)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        lr, weight_decay, decay = group["lr"], group["weight_decay"], group["momentum_decay"]
        beta1, beta2 = group["betas"]
        state = self.state[p]
        if not state:
            state["step"] = T.tensor(0.0)
            state["mu_product"] = T.tensor(1.0)
            state["exp_avg"] = T.zeros_like(p)
            state["exp_avg_sq"] = T.zeros_like(p)
        exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], state["mu_product"]
        state["step"].add_(1)
        step = state["step"].item()
        bias_correction2 = 1 - beta2**step
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * weight_decay)
            else:
                grad = K.add(grad, p, alpha=weight_decay)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * decay)))
        mu_product.mul_(mu)
        K.lerp_(exp_avg, grad, 1 - beta1)
        K.addcmul_(exp_avg_sq.mul_(beta2), grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()
        mu_product_next = mu_product.item() * mu_next
        denom.add_(group["eps"])
        K.addcdiv_(p, grad, denom, value=(-lr * (1.0 - mu) / (1.0 - mu_product.item())))
        K.addcdiv_(p, exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
