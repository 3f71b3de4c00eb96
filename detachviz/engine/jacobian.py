"""`torch.autograd.functional`: jacobian, hessian, vjp, jvp, hvp and vhp of a function, each
built from `torch.autograd.grad` calls as torch builds them (reverse mode; jvp and hvp by the
double-backward trick), with torch's return structures (a Tensor for a Tensor, tuples for
tuples) and its strict-mode errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from detachviz.engine import grad_mode
from detachviz.engine.autograd import grad as _grad
from detachviz.engine.namespace import module_getattr as refusing_getattr
from detachviz.engine.ops.join import stack
from detachviz.engine.tensor import Tensor, wrap

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def as_tuple(x: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple[Any, ...]]:
    """(was it a tuple, the tuple), with torch's TypeError for anything but tensors."""
    if isinstance(x, tuple):
        for i, el in enumerate(x):
            if not isinstance(el, Tensor):
                raise TypeError(
                    f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                    f"Tensors but the value at index {i} has type {type(el)}."
                )
        return True, tuple(x)
    if not isinstance(x, Tensor):
        raise TypeError(
            f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors "
            f"but the given {arg_name} has type {type(x)}."
        )
    return False, (x,)


def _untuple(res: Any, was_tuple: tuple[bool, ...]) -> Any:
    """Undo as_tuple: `was_tuple` has one flag per nesting level, outermost first."""
    if len(was_tuple) == 2 and not was_tuple[1]:
        res = tuple(el[0] for el in res)
    if not was_tuple[0]:
        res = res[0]
    return res


def _prepare(inputs: tuple[Tensor, ...], create_graph: bool, need_graph: bool) -> tuple[Any, ...]:
    """Fresh inputs to differentiate at: detached leaves, or (create_graph with an input that
    already requires grad) a view that keeps the input's own history."""
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(xs: Any, create_graph: bool) -> Any:
    if isinstance(xs, tuple):
        return tuple(_finish(x, create_graph) for x in xs)
    if xs is None or create_graph:
        return xs
    return xs.detach()


def _check_v(v: tuple[Tensor, ...], other: tuple[Tensor, ...], is_outputs: bool) -> None:
    if len(v) != len(other):
        if len(other) == 1:
            raise RuntimeError("The given v should contain a single Tensor.")
        raise RuntimeError(
            f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
        )
    for idx, (a, b) in enumerate(zip(v, other)):
        if a.size() != b.size():
            prepend = f"Entry {idx} in " if len(other) > 1 else ""
            raise RuntimeError(
                f"{prepend}v has invalid size: should be {b.size()} but got {a.size()}."
            )


def _check_outputs_require_grad(outputs: tuple[Tensor, ...], strict: bool) -> None:
    if not strict:
        return
    for i, o in enumerate(outputs):
        if not o.requires_grad:
            raise RuntimeError(
                f"Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when "
                "running in strict mode."
            )


def _grads(
    outputs: tuple[Tensor, ...],
    inputs: tuple[Tensor, ...],
    grad_outputs: tuple[Any, ...],
    create_graph: bool,
) -> tuple[Any, ...]:
    """autograd.grad over the outputs that require grad; None for an unreached input."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _grad(
        tuple(o for o, _ in pairs),
        inputs,
        tuple(g for _, g in pairs),
        retain_graph=True,
        create_graph=create_graph,
        allow_unused=True,
    )


def _zeros_for_none(
    grads: tuple[Any, ...], refs: tuple[Tensor, ...], strict: bool, msg: str
) -> tuple[Tensor, ...]:
    out = []
    for i, (g, r) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(msg.format(i))
            g = wrap(np.zeros_like(r._data), r._dtype)
        out.append(g)
    return tuple(out)


_INDEPENDENT = (
    "The output of the user-provided function is independent of input {}. This is not "
    "allowed in strict mode."
)


def _check_scalar(name: str, is_tuple: bool, out: Any) -> None:
    if is_tuple or not isinstance(out, Tensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if out.numel() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {name} should contain a single element"
        )


def _refuse(name: str, **flags: Any) -> None:
    for flag, (value, default) in flags.items():
        if value != default:
            raise NotImplementedError(
                f"torch.autograd.functional.{name}({flag}={value!r}) is not supported by detachviz"
            )


def vjp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """(func(inputs), v^T J): the vector-Jacobian product at `inputs`."""
    with grad_mode.enable_grad():
        in_tuple, ins = as_tuple(inputs, "inputs", "vjp")
        ins = _prepare(ins, create_graph, True)
        out_tuple, outs = as_tuple(func(*ins), "outputs of the user-provided function", "vjp")
        _check_outputs_require_grad(outs, strict)
        if v is not None:
            _, vs = as_tuple(v, "v", "vjp")
            _check_v(vs, outs, True)
        else:
            if len(outs) != 1 or outs[0].numel() != 1:
                raise RuntimeError(
                    "The vector v can only be None if the user-provided function returns a "
                    "single Tensor with a single element."
                )
            vs = (None,)
        gi = _grads(outs, ins, vs, create_graph)
        vjps = _zeros_for_none(gi, ins, strict, _INDEPENDENT)
    return _untuple(_finish(outs, create_graph), (out_tuple,)), _untuple(
        _finish(vjps, create_graph), (in_tuple,)
    )


def jvp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """(func(inputs), J v), by the double-backward trick: J v is the gradient, with respect
    to a dummy cotangent u, of u^T J v."""
    with grad_mode.enable_grad():
        in_tuple, ins = as_tuple(inputs, "inputs", "jvp")
        ins = _prepare(ins, create_graph, True)
        if v is not None:
            _, vs = as_tuple(v, "v", "jvp")
            _check_v(vs, ins, False)
        else:
            if len(ins) != 1 or ins[0].numel() != 1:
                raise RuntimeError(
                    "The vector v can only be None if the input to the user-provided function "
                    "is a single Tensor with a single element."
                )
            vs = (None,)
        out_tuple, outs = as_tuple(func(*ins), "outputs of the user-provided function", "jvp")
        _check_outputs_require_grad(outs, strict)
        us = tuple(wrap(np.zeros_like(o._data), o._dtype).requires_grad_(True) for o in outs)
        gi = _grads(outs, ins, us, True)
        pairs = [(g, vv) for g, vv in zip(gi, vs) if g is not None]
        if pairs:
            gu = _grad(
                tuple(g for g, _ in pairs),
                us,
                tuple(vv for _, vv in pairs),
                retain_graph=True,
                create_graph=create_graph,
                allow_unused=True,
            )
        else:
            gu = (None,) * len(us)
        jvps = _zeros_for_none(gu, outs, strict, _INDEPENDENT)
    return _untuple(_finish(outs, create_graph), (out_tuple,)), _untuple(
        _finish(jvps, create_graph), (out_tuple,)
    )


def jacobian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of func at inputs: for output i and input j a tensor of shape
    `out_i.shape + in_j.shape`, one reverse pass per output element."""
    _refuse("jacobian", vectorize=(vectorize, False), strategy=(strategy, "reverse-mode"))
    with grad_mode.enable_grad():
        in_tuple, ins = as_tuple(inputs, "inputs", "jacobian")
        ins = _prepare(ins, create_graph, True)
        out_tuple, outs = as_tuple(func(*ins), "outputs of the user-provided function", "jacobian")
        _check_outputs_require_grad(outs, strict)
        jac: list[tuple[Tensor, ...]] = []
        for i, out in enumerate(outs):
            flat = out.reshape(-1)
            rows: list[list[Tensor]] = [[] for _ in ins]
            for j in range(flat.numel()):
                if out.requires_grad:
                    gi = _grad(
                        flat[j], ins, retain_graph=True, create_graph=create_graph,
                        allow_unused=True,
                    )  # fmt: skip
                else:
                    gi = (None,) * len(ins)
                for k, (g, x) in enumerate(zip(gi, ins)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {k}. This is not allowed in strict mode."
                            )
                        g = wrap(np.zeros_like(x._data), x._dtype)
                    rows[k].append(g)
            jac.append(
                tuple(
                    (
                        stack(r).reshape(*out.shape, *x.shape)
                        if r
                        else wrap(np.zeros(out.shape + x.shape, x._data.dtype), x._dtype)
                    )
                    for r, x in zip(rows, ins)
                )
            )
    return _untuple(_finish(tuple(jac), create_graph), (out_tuple, in_tuple))


def hessian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of a scalar function: the Jacobian of its gradient."""
    _refuse(
        "hessian",
        vectorize=(vectorize, False),
        outer_jacobian_strategy=(outer_jacobian_strategy, "reverse-mode"),
    )
    in_tuple, ins = as_tuple(inputs, "inputs", "hessian")

    def jac_func(*xs: Tensor) -> Any:
        out = func(*xs)
        _check_scalar("hessian", isinstance(out, tuple), out)
        gi = _grads((out.reshape(()),), xs, (None,), True)
        return _zeros_for_none(gi, xs, strict, _INDEPENDENT)

    res = jacobian(jac_func, ins, create_graph=create_graph, strict=strict)
    return _untuple(res, (in_tuple, in_tuple))


def vhp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """(func(inputs), v^T H) of a scalar function."""
    return _hessian_product("vhp", func, inputs, v, create_graph, strict)


def hvp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """(func(inputs), H v) of a scalar function (H is symmetric: the same numbers as vhp)."""
    return _hessian_product("hvp", func, inputs, v, create_graph, strict)


def _hessian_product(
    name: str, func: Callable[..., Any], inputs: Any, v: Any, create_graph: bool, strict: bool
) -> tuple[Any, Any]:
    with grad_mode.enable_grad():
        in_tuple, ins = as_tuple(inputs, "inputs", name)
        ins = _prepare(ins, create_graph, True)
        if v is not None:
            _, vs = as_tuple(v, "v", name)
            _check_v(vs, ins, False)
        else:
            if len(ins) != 1 or ins[0].numel() != 1:
                raise RuntimeError(
                    "The vector v can only be None if the input to the user-provided function "
                    "is a single Tensor with a single element."
                )
            vs = (None,)
        out_tuple, outs = as_tuple(func(*ins), "outputs of the user-provided function", name)
        _check_scalar(name, out_tuple, outs[0])
        _check_outputs_require_grad(outs, strict)
        jac = _grads((outs[0].reshape(()),), ins, (None,), True)
        jac = _zeros_for_none(jac, ins, strict, _INDEPENDENT)
        if name == "vhp":
            gi = _grads(jac, ins, vs, create_graph)
            res = _zeros_for_none(gi, ins, strict, _INDEPENDENT)
        else:
            # H v = d/du (u^T H v) with u^T H = (grad of jac . u); torch's double-backward trick
            us = tuple(wrap(np.zeros_like(j._data), j._dtype).requires_grad_(True) for j in jac)
            dj = _grads(jac, ins, us, True)
            pairs = [(d, vv) for d, vv in zip(dj, vs) if d is not None]
            gu = (
                _grad(
                    tuple(d for d, _ in pairs), us, tuple(vv for _, vv in pairs),
                    retain_graph=True, create_graph=create_graph, allow_unused=True,
                )
                if pairs
                else (None,) * len(us)
            )  # fmt: skip
            res = _zeros_for_none(gu, ins, strict, _INDEPENDENT)
    return _finish(outs[0], create_graph), _untuple(_finish(res, create_graph), (in_tuple,))


# a name torch has and detachviz lacks is refused clearly (engine/unsupported.py)
__getattr__ = refusing_getattr(globals(), "torch.autograd.functional", {}, methods=False)
