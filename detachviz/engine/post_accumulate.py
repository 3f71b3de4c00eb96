"""Tensor.register_post_accumulate_grad_hook: hooks a leaf runs after its .grad is written."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from detachviz.engine import errors
from detachviz.engine.node import RemovableHandle
from detachviz.engine.tensor import Tensor


def register_post_accumulate_grad_hook(
    self: Tensor, hook: Callable[[Tensor], None]
) -> RemovableHandle:
    """Run `hook(tensor)` after backward accumulates into this leaf's .grad (not for
    autograd.grad, which writes no .grad). The hooks live on the leaf's AccumulateGrad node,
    which the leaf caches, so every later graph through the leaf runs them."""
    if not self._requires_grad:
        raise RuntimeError(errors.HOOK_NO_RG)
    if self._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    acc = self._accumulator()
    if acc._post_acc is None:
        acc._post_acc = []
    hooks: list[Any] = acc._post_acc
    hooks.append(hook)
    return RemovableHandle(hooks, hook)


Tensor.register_post_accumulate_grad_hook = register_post_accumulate_grad_hook  # type: ignore[attr-defined]
