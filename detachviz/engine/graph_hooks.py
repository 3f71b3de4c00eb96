"""`torch.autograd.graph`: hooks on the graph itself -- saved-tensor hooks
(`saved_tensors_hooks`, `save_on_cpu`, `disable_saved_tensors_hooks`) and
`register_multi_grad_hook` -- plus the `Node` base class.

Saved-tensor hooks: while a `saved_tensors_hooks(pack, unpack)` block is active, every tensor
a node saves for backward goes through `pack` when the op runs (`pack_node`, called by the op
kit's savers) and comes back through `unpack` when backward (or `grad_fn._saved_x`) reads it.
The packed values live in node.PACKED beside the node."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from detachviz.engine import state
from detachviz.engine.node import PACK_ORDER, PACKED, Node, RemovableHandle, SavedOutput
from detachviz.engine.tensor import edge
from detachviz.engine.unsupported import refuse

__all__ = [
    "Node",
    "disable_saved_tensors_hooks",
    "register_multi_grad_hook",
    "save_on_cpu",
    "saved_tensors_hooks",
]

_SCALARS = (int, float, bool)


def pack_node(node: Any) -> None:
    """Pack what `node` just saved with the innermost active hooks (torch's save order)."""
    pack, unpack = state.saved_hooks[-1]
    saved = node._saved
    slots: dict[int, tuple[Any, Any]] = {}
    for k in PACK_ORDER.get(node._name, range(len(saved))):
        t = saved[k]
        if t is None or type(t) in _SCALARS:
            continue
        value = node._value_of_saved(k) if isinstance(t, SavedOutput) else t
        slots[k] = (pack(value), unpack)
    if slots:
        PACKED[node] = slots
        state.packed = True


class saved_tensors_hooks:  # noqa: N801 - torch's name
    """Context manager: tensors saved for backward inside it go through pack_hook when
    saved and unpack_hook when used."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        if state.saved_hooks_disabled is not None:
            raise RuntimeError(state.saved_hooks_disabled)
        state.saved_hooks.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc: object) -> None:
        state.saved_hooks.pop()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 - torch's name
    """Saved tensors are kept on the CPU and moved back to their device when used. Every
    tensor is on the CPU here, so the values are the tensors themselves."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor: Any) -> Any:
            return (tensor.device, tensor.cpu())

        def unpack_from_cpu(packed: Any) -> Any:
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks:  # noqa: N801 - torch's name
    """Context manager (and decorator): inside it, turning saved-tensor hooks on raises
    RuntimeError(error_message)."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        self._prev = state.saved_hooks_disabled
        state.saved_hooks_disabled = self.error_message

    def __exit__(self, *exc: object) -> None:
        state.saved_hooks_disabled = self._prev

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with disable_saved_tensors_hooks(self.error_message):
                return fn(*args, **kwargs)

        return wrapper


class _MultiHandle:
    """What register_multi_grad_hook returns: `.remove()` takes every per-tensor hook out."""

    def __init__(self, handles: list[RemovableHandle]) -> None:
        self.handles = handles

    def remove(self) -> None:
        for h in self.handles:
            h.remove()

    def __enter__(self) -> _MultiHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def register_multi_grad_hook(
    tensors: Sequence[Any], fn: Callable[..., Any], *, mode: str = "all"
) -> _MultiHandle:
    """mode "all": fn(grads) once every tensor the backward pass reaches got its gradient
    (grads in the tensors' order, None for a tensor the pass does not reach, as torch);
    mode "any": fn(grad) for the first gradient of each pass."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    seen: dict[str, Any] = {"pass": None, "grads": [None] * len(tensors), "count": 0}
    seen["expect"] = 0
    handles = []

    def reached() -> int:
        reach = state.backward_reach
        if reach is None:
            return len(tensors)
        deps, needed, accumulate = reach
        n = 0
        for t in tensors:
            if not t.requires_grad:
                continue
            if not accumulate and t.grad_fn is None:
                raise RuntimeError(
                    "A leaf node was passed to _will_engine_execute_node but we are currently "
                    "running autograd.grad(). This is currently not supported."
                )
            node = edge(t)[0]
            if node in deps and (needed is None or node in needed):
                n += 1
        return n

    def make(i: int) -> Callable[[Any], None]:
        def hook(g: Any) -> None:
            if seen["pass"] != state.backward_pass:  # a new backward pass: start over
                seen.update({"pass": state.backward_pass, "grads": [None] * len(tensors)})
                seen["count"] = 0
                if mode == "any":
                    fn(g)
                    return
                seen["expect"] = reached()
            if mode == "any":
                return
            seen["grads"][i] = g
            seen["count"] += 1
            if seen["count"] == seen["expect"]:
                fn(tuple(seen["grads"]))

        return hook

    for i, t in enumerate(tensors):
        if t.requires_grad:
            handles.append(t.register_hook(make(i)))
    return _MultiHandle(handles)


# a name torch has and detachviz lacks is refused clearly (engine/unsupported.py)
def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise refuse(f"torch.autograd.graph.{name}")
