"""torch.optim.Optimizer: param groups, per-parameter state, zero_grad, step hooks and
state_dict/load_state_dict in torch's format (state keyed by the parameter's index over all
groups, groups holding index lists), so a state saved under torch loads here and back.

A subclass lists its hyperparameters in `defaults` and implements `_update(p, grad, group)`
for one parameter (grad already negated under maximize); `step` runs it under no_grad for
every parameter with a grad, in group order, as torch's single-tensor (foreach=False) loop
does.
"""

from __future__ import annotations

import copy
import itertools
import warnings
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from detachviz import torch as T

Tensor = Any


class _RequiredParameter:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

# The constructor switches that select another implementation of the same update (CUDA graphs,
# multi-tensor kernels, a differentiable step): detachviz runs only the single-tensor one.
_UNSUPPORTED_FLAGS = ("foreach", "fused", "capturable", "differentiable")


class RemovableHandle:
    """What register_step_*_hook returns: `remove()` takes the hook out again."""

    _next_id = 0

    def __init__(self, hooks: dict[int, Any]) -> None:
        self._hooks = hooks
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self) -> None:
        self._hooks.pop(self.id, None)


def check_range(name: str, value: Any, ok: bool) -> None:
    """torch's constructor checks: `Invalid <name>: <value>`."""
    if not ok:
        raise ValueError(f"Invalid {name}: {value}")


def check_adam_args(lr: Any, eps: Any, betas: Any, weight_decay: Any) -> None:
    """The checks every Adam-family constructor makes, in torch's order."""
    check_range("learning rate", lr, lr >= 0.0)
    check_range("epsilon value", eps, eps >= 0.0)
    for i, beta in enumerate(betas):
        check_range(f"beta parameter at index {i}", beta, 0.0 <= beta < 1.0)
    check_range("weight_decay value", weight_decay, weight_decay >= 0.0)


class Optimizer:
    """Holds `param_groups` (dicts with "params" and hyperparameters) and per-parameter
    `state` (a defaultdict keyed by the parameter tensor)."""

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        for flag in _UNSUPPORTED_FLAGS:
            if defaults.get(flag):
                raise NotImplementedError(
                    f"torch.optim.{type(self).__name__}({flag}=True) is not supported by "
                    f"detachviz (it runs the single-tensor update, foreach=False)"
                )
        self.defaults = defaults
        self._optimizer_step_pre_hooks: dict[int, Any] = {}
        self._optimizer_step_post_hooks: dict[int, Any] = {}
        if isinstance(params, T.Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {params.type()}"
            )
        self.state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)
        self.defaults.setdefault("differentiable", False)

    def __getstate__(self) -> dict[str, Any]:
        return {
            "defaults": self.defaults,
            "state": self.state,
            "param_groups": self.param_groups,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("_optimizer_step_pre_hooks", {})
        self.__dict__.setdefault("_optimizer_step_post_hooks", {})
        for group in self.param_groups:
            for key, default in self.defaults.items():
                if default is not required:
                    group.setdefault(key, default)
        for s in self.state.values():
            step = s.get("step")
            if step is not None and not isinstance(step, T.Tensor):
                s["step"] = T.tensor(float(step), dtype=T.float32)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, T.Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        tensors, names = [], []
        for p in param_group["params"]:
            if isinstance(p, tuple):
                names.append(p[0])
                tensors.append(p[1])
            else:
                tensors.append(p)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError(
                    "all optimizer params should be with/without names. "
                    "Some param names are missing"
                )
            param_group["param_names"] = names
        for p in tensors:
            if not isinstance(p, T.Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is " + _typename(p)
                )
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for key, default in self.defaults.items():
            if default is required and key not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization "
                    f"parameter {key}"
                )
            param_group.setdefault(key, default)
        if len({id(p) for p in tensors}) != len(tensors):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for "
                "more information",
                stacklevel=3,
            )
        existing: set[int] = set()
        for group in self.param_groups:
            existing.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                current = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {current} to the optimizer"
                )
        if any(id(p) in existing for p in tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

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

    # -- step -------------------------------------------------------------------------------

    def register_step_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        args: tuple[Any, ...] = () if closure is None else (closure,)
        kwargs: dict[str, Any] = {}
        for hook in list(self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(
                        f"{hook} must return None or a tuple of (new_args, new_kwargs), "
                        f"but got {result}."
                    )
                args, kwargs = result
        self._opt_called = True  # what lr_scheduler checks (torch's step wrapper sets it)
        loss = self._step(*args, **kwargs)
        for hook in list(self._optimizer_step_post_hooks.values()):
            hook(self, args, kwargs)
        return loss

    def _step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = None
        if closure is not None:
            with T.enable_grad():
                loss = closure()
        with T.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = -p.grad if group["maximize"] else p.grad
                    self._update(p, grad, group)
        return loss

    def _update(self, p: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        raise NotImplementedError

    # -- state_dict ---------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        index: dict[int, int] = {}
        groups = []
        start = 0
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            for i, p in enumerate(g["params"], start):
                index.setdefault(id(p), i)
            packed["params"] = [index[id(p)] for p in g["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, T.Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state_dict = dict(state_dict)
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        id_map = dict(
            zip(
                itertools.chain.from_iterable(g["params"] for g in saved_groups),
                itertools.chain.from_iterable(g["params"] for g in groups),
            )
        )
        state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v)
            else:
                state[k] = v
        new_groups = []
        for g, ng in zip(groups, saved_groups):
            ng["params"] = g["params"]
            if "param_names" in g and "param_names" not in ng:
                ng["param_names"] = g["param_names"]
            new_groups.append(ng)
        self.__setstate__({"state": state, "param_groups": new_groups})

    def __repr__(self) -> str:
        out = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            out += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    out += f"    {key}: {group[key]}\n"
        return out + ")"


def _typename(x: Any) -> str:
    if isinstance(x, T.Tensor):
        return str(x.type())
    module = type(x).__module__
    name = type(x).__qualname__
    return name if module in ("builtins", None) else f"{module}.{name}"


def _cast(param: Tensor, value: Any, key: Any = None) -> Any:
    """A loaded state value moved to the parameter's dtype, as torch does (`step` stays)."""
    if isinstance(value, T.Tensor):
        if key == "step":
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype)
        return value
    if isinstance(value, dict):
        return {k: _cast(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(param, v, key) for v in value)
    return value
