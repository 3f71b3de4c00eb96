"""torch.optim.RMSprop: alpha smoothing, momentum, centered, weight decay, maximize (torch's
single-tensor update step for step)."""

from __future__ import annotations

from typing import Any

from detachviz import torch as T
from detachviz.optim import kernels as K
from detachviz.optim.optimizer import Optimizer, Tensor, check_range


class RMSprop(Optimizer):
    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_range("learning rate", lr, lr >= 0.0)
        check_range("epsilon value", eps, eps >= 0.0)
        check_range("momentum value", momentum, momentum >= 0.0)
        check_range("weight_decay value", weight_decay, weight_decay >= 0.0)
        check_range("alpha value", alpha, alpha >= 0.0)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        alpha, momentum = group["alpha"], group["momentum"]
        state = self.state[p]
        if not state:
            state["step"] = T.tensor(0.0)
            state["square_avg"] = T.zeros_like(p)
            if momentum > 0:
                state["momentum_buffer"] = T.zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = T.zeros_like(p)
        square_avg = state["square_avg"]
        state["step"].add_(1)
        if group["weight_decay"] != 0:
            grad = K.add(grad, p, alpha=group["weight_decay"])
        K.addcmul_(square_avg.mul_(alpha), grad, grad, value=1 - alpha)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            K.lerp_(grad_avg, grad, 1 - alpha)
            avg = K.addcmul(square_avg, grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(group["eps"])
        if momentum > 0:
            buf = state["momentum_buffer"]
            K.addcdiv_(buf.mul_(momentum), grad, avg)
            K.add_(p, buf, alpha=-group["lr"])
        else:
            K.addcdiv_(p, grad, avg, value=-group["lr"])
