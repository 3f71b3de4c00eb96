"""torch.optim.SGD: momentum, dampening, Nesterov, weight decay, maximize (torch's
single-tensor update, step for step)."""

from __future__ import annotations

from typing import Any

from detachviz.optim import kernels as K
from detachviz.optim.optimizer import Optimizer, Tensor, check_range


class SGD(Optimizer):
    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        check_range("learning rate", lr, lr >= 0.0)
        check_range("momentum value", momentum, momentum >= 0.0)
        check_range("weight_decay value", weight_decay, weight_decay >= 0.0)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def _update(self, p: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        weight_decay, momentum = group["weight_decay"], group["momentum"]
        if weight_decay != 0:
            grad = K.add(grad, p, alpha=weight_decay)
        if momentum != 0:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                # torch: grad.detach().clone(); under no_grad the clone has no history, and
                # skipping detach() keeps a cut record out of the trace
                buf = state["momentum_buffer"] = grad.clone()
            else:
                K.add_(buf.mul_(momentum), grad, alpha=1 - group["dampening"])
            grad = K.add(grad, buf, alpha=momentum) if group["nesterov"] else buf
        K.add_(p, grad, alpha=-group["lr"])
