"""Module hooks: the handle `register_*_hook` returns, and torch's full-backward-hook wiring.

A full backward hook (or backward pre hook) wraps the module's tensor inputs and its tensor
outputs in one identity `BackwardHookFunction` each, as torch does, so the graph shows
torch's `BackwardHookFunctionBackward` nodes around the module's own ops. The output-side
node's post hook sees the gradients w.r.t. the outputs (backward pre hooks may replace
them); the input-side node's post hook then calls the user hooks with
`(module, grad_input, grad_output)` and lets them replace grad_input. Gradient tuples are
one slot per positional argument / output, None where that slot is not a tensor.
"""

from __future__ import annotations

import itertools
import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from detachviz import torch as T
from detachviz.engine.custom_function import Function

_ids = itertools.count()


class RemovableHandle:
    """torch.utils.hooks.RemovableHandle: `.remove()` drops the hook from every dict it was
    entered in (the hook dict, plus the with_kwargs / always_call markers)."""

    def __init__(self, hooks_dict: OrderedDict[int, Any], *extra_dicts: dict[int, Any]) -> None:
        self.id = next(_ids)
        self._dicts = (hooks_dict, *extra_dicts)

    def remove(self) -> None:
        for d in self._dicts:
            d.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def add_hook(
    hooks: OrderedDict[int, Any], hook: Callable[..., Any], prepend: bool, *markers: dict[int, Any]
) -> RemovableHandle:
    """Enter `hook` in `hooks` (first if prepend) and mark it in each of `markers`."""
    handle = RemovableHandle(hooks, *markers)
    hooks[handle.id] = hook
    for m in markers:
        m[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


class BackwardHookFunction(Function):
    """The identity whose node (BackwardHookFunctionBackward) carries a module's hooks."""

    @staticmethod
    def forward(ctx: Any, *args: Any) -> Any:
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        return grads


def _pack(index: list[int], values: Any, size: int) -> tuple[Any, ...]:
    out: list[Any] = [None] * size
    for i, v in zip(index, values, strict=False):
        out[i] = v
    return tuple(out)


class BackwardHook:
    """One module call's full backward hooks (torch.utils.hooks.BackwardHook's protocol)."""

    def __init__(self, module: Any, user_hooks: list[Any], user_pre_hooks: list[Any]) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs: tuple[Any, ...] | None = None
        self.n_inputs = 0
        self.n_outputs = 0
        self.input_index: list[int] | None = None
        self.output_index: list[int] | None = None
        self._zeros: list[Any] = []

    def _wrap(self, args: tuple[Any, ...], hook: Callable[..., Any]) -> Any:
        """Route the tensors of `args` through one BackwardHookFunction whose node gets
        `hook` as a post hook; (new args, tensor positions), or (args, None) if no grad."""
        index = [i for i, a in enumerate(args) if isinstance(a, T.Tensor)]
        tensors = [args[i] for i in index]
        if not (any(t.requires_grad for t in tensors) and T.is_grad_enabled()):
            return args, None
        new = BackwardHookFunction.apply(*tensors)
        node = next(t.grad_fn for t in new if t.grad_fn is not None)
        node.register_hook(hook)
        out = list(args)
        for i, t in zip(index, new, strict=True):
            out[i] = t
        return tuple(out), index

    def setup_input_hook(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        self.n_inputs = len(args)
        self._zeros = [(a.shape, a.dtype) for a in args if isinstance(a, T.Tensor)]
        new, self.input_index = self._wrap(args, self._input_hook)
        return new

    def setup_output_hook(self, result: Any) -> Any:
        single = not isinstance(result, tuple)
        outs = (result,) if single else result
        self.n_outputs = len(outs)
        new, self.output_index = self._wrap(outs, self._output_hook)
        return new[0] if single else new

    def _output_hook(self, grad_inputs: Any, _grad_outputs: Any) -> Any:
        # NOTE: the node is the identity: the gradients it passes on are the outputs' grads
        assert self.output_index is not None
        # NOTE: an output no gradient reached shows None (the node's inputs are materialized)
        reached = [g if o is not None else None for g, o in zip(grad_inputs, _grad_outputs)]
        self.grad_outputs = _pack(self.output_index, reached, self.n_outputs)
        for pre in self.user_pre_hooks:
            new = pre(self.module, self.grad_outputs)
            if new is None:
                continue
            new = (new,) if isinstance(new, T.Tensor) else tuple(new)
            if len(new) != len(self.grad_outputs):
                raise RuntimeError(
                    f"Backward pre hook returned an invalid number of grad_output, got "
                    f"{len(new)}, but expected {len(self.grad_outputs)}"
                )
            self.grad_outputs = new
        local = self.grad_outputs
        if self.input_index is None:
            warnings.warn(
                "Full backward hook is firing when gradients are computed with respect to "
                "module outputs since no inputs require gradients. See "
                "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn."
                "Module.register_full_backward_hook for more details.",
                UserWarning,
                stacklevel=2,
            )
            grad_inputs_none = (None,) * self.n_inputs
            for hook in self.user_hooks:
                res = hook(self.module, grad_inputs_none, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires gradient should "
                        "always return None or None for all gradients."
                    )
            self.grad_outputs = None
        return tuple(local[i] for i in self.output_index)

    def _input_hook(self, grad_inputs: Any, _grad_outputs: Any) -> Any:
        if self.grad_outputs is None:
            return None  # the gradient reached the inputs without passing the outputs
        assert self.input_index is not None
        # NOTE: torch's identity Function materializes the gradient of an input no gradient
        # reached (one that does not require grad, or is not used): zeros, not None
        grads = [
            T.zeros(shape, dtype=dt) if g is None else g
            for g, (shape, dt) in zip(grad_inputs, self._zeros, strict=True)
        ]
        res = _pack(self.input_index, grads, self.n_inputs)
        for hook in self.user_hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            out = (out,) if isinstance(out, T.Tensor) else tuple(out)
            if len(out) != len(res):
                raise RuntimeError(
                    f"Backward hook returned an invalid number of grad_input, got {len(out)}, "
                    f"but expected {len(res)}"
                )
            res = out
        self.grad_outputs = None
        return tuple(res[i] for i in self.input_index)
