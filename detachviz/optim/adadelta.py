"""torch.optim.Adadelta (torch's single-tensor update step for step)."""

from __future__ import annotations

from typing import Any

from detachviz import torch as T
from detachviz.optim import kernels as K
from detachviz.optim.optimizer import Optimizer, Tensor, check_range


class Adadelta(Optimizer):
    def __init__(
        self,
        params: Any,
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_range("learning rate", lr, lr >= 0.0)
        check_range("rho value", rho, 0.0 <= rho <= 1.0)
        check_range("epsilon value", eps, eps >= 0.0)
        check_range("weight_decay value", weight_decay, weight_decay >= 0.0)
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        rho, eps = group["rho"], group["eps"]
        state = self.state[p]
        if not state:
            state["step"] = T.tensor(0.0)
            state["square_avg"] = T.zeros_like(p)
            state["acc_delta"] = T.zeros_like(p)
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        state["step"].add_(1)
        if group["weight_decay"] != 0:
            grad = K.add(grad, p, alpha=group["weight_decay"])
        K.addcmul_(square_avg.mul_(rho), grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        delta.div_(std).mul_(grad)
        K.addcmul_(acc_delta.mul_(rho), delta, delta, value=1 - rho)
        K.add_(p, delta, alpha=-group["lr"])
