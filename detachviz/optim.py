"""torch.optim: `Optimizer` (param groups, state, zero_grad), `SGD`, `Adam` and `AdamW`.

Updates follow torch's single-tensor implementations (torch/optim/sgd.py, adam.py) step for
step, written in plain tensor ops under no_grad: parameters change in place, so their
`_version` moves exactly as under torch.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from detachviz import torch as T
from detachviz.engine.namespace import module_getattr as _refusing_getattr

Tensor = Any


class _RequiredParameter:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Holds `param_groups` (dicts with "params" and hyperparameters) and per-parameter
    `state`; subclasses implement `step()`."""

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: dict[Any, dict[str, Any]] = {}
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, T.Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got torch.{params.dtype.legacy}"
            )
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        group = dict(param_group)
        params = group["params"]
        if isinstance(params, T.Tensor):
            group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            # named parameters ((name, tensor) pairs) are accepted as torch 2.13 does
            group["params"] = [p[1] if isinstance(p, tuple) else p for p in params]
        for p in group["params"]:
            if not isinstance(p, T.Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + type(p).__name__
                )
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for key, default in self.defaults.items():
            if default is required and key not in group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization "
                    f"parameter {key}"
                )
            group.setdefault(key, default)
        existing = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in existing for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()

    def _state(self, p: Tensor) -> dict[str, Any]:
        return self.state.setdefault(p, {})

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = None
        if closure is not None:
            with T.enable_grad():
                loss = closure()
        with T.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(p, group)
        return loss

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        raise NotImplementedError

    def state_dict(self) -> dict[str, Any]:
        index = {id(p): i for i, p in enumerate(p for g in self.param_groups for p in g["params"])}
        return {
            "state": {index[id(p)]: dict(s) for p, s in self.state.items()},
            "param_groups": [
                {
                    **{k: v for k, v in g.items() if k != "params"},
                    "params": [index[id(p)] for p in g["params"]],
                }
                for g in self.param_groups
            ],
        }

    def __repr__(self) -> str:
        out = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            out += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    out += f"    {key}: {group[key]}\n"
        return out + ")"


def _check_nonnegative(name: str, value: float) -> None:
    if not 0.0 <= value:
        raise ValueError(f"Invalid {name}: {value}")


class SGD(Optimizer):
    """Stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

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
        _check_nonnegative("learning rate", lr)
        _check_nonnegative("momentum value", momentum)
        _check_nonnegative("weight_decay value", weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
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
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        grad = -p.grad if group["maximize"] else p.grad
        if group["weight_decay"] != 0:
            grad = grad + p * group["weight_decay"]
        momentum = group["momentum"]
        if momentum != 0:
            state = self._state(p)
            buf = state.get("momentum_buffer")
            if buf is None:
                # torch writes clone().detach(); under no_grad the clone has no history anyway,
                # and skipping detach() keeps a cut record out of the trace
                buf = state["momentum_buffer"] = grad.clone()
            else:
                buf.mul_(momentum).add_(grad * (1 - group["dampening"]))
            grad = grad + buf * momentum if group["nesterov"] else buf
        p.add_(grad * -group["lr"])


class Adam(Optimizer):
    """Adam (Kingma & Ba) with torch's bias corrections; `decoupled_weight_decay` is AdamW."""

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
        _check_nonnegative("learning rate", lr)
        _check_nonnegative("epsilon value", eps)
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
        _check_nonnegative("weight_decay value", weight_decay)
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

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        grad = -p.grad if group["maximize"] else p.grad
        state = self._state(p)
        if not state:
            state["step"] = T.tensor(0.0)
            state["exp_avg"] = T.zeros_like(p)
            state["exp_avg_sq"] = T.zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = T.zeros_like(p)
        state["step"].add_(1)
        step = state["step"].item()
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * weight_decay)
            else:
                grad = grad + p * weight_decay
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        # NOTE: torch's exp_avg.lerp_(grad, 1 - beta1) and addcmul_(grad, grad, 1 - beta2)
        exp_avg.add_((grad - exp_avg) * (1 - beta1))
        exp_avg_sq.mul_(beta2).add_(grad * grad * (1 - beta2))
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = math.sqrt(bias_correction2)
        second = exp_avg_sq
        if group["amsgrad"]:
            best = state["max_exp_avg_sq"]
            if hasattr(T, "maximum"):
                best.copy_(T.maximum(best, exp_avg_sq))
            else:  # until the engine has torch.maximum (state tensors never require grad)
                best.copy_(T.tensor(np.maximum(best.numpy(), exp_avg_sq.numpy())))
            second = state["max_exp_avg_sq"]
        denom = second.sqrt() / bias_correction2_sqrt + eps
        p.add_(exp_avg / denom * -step_size)


class AdamW(Adam):
    """Adam with decoupled weight decay (default 1e-2), as torch.optim.AdamW."""

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            params, lr, betas, eps, weight_decay, amsgrad, decoupled_weight_decay=True, **kwargs
        )


# a name torch has and detachviz lacks is refused clearly (engine/unsupported.py)
__getattr__ = _refusing_getattr(globals(), "torch.optim", {}, methods=False)
