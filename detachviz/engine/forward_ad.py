"""Forward-mode AD (`torch.autograd.forward_ad`): the dual level, dual tensors, propagation.

How tangents flow: while a dual level is active, `state.fw_hooks` points at this module's hooks
and every helper of the op kit (engine/function.py: `apply`, `unary`, `binary`, `view`,
`inplace`, `finish`) calls `op()` or `inplace()` here; with no level active that costs one
`if`. A node class carries its JVP rules as `_jvp`, written beside its backward row in its op
family file (`node_class(..., jvp=...)` or `set_jvp`): one rule per input,
`rule(t, p, out, a)` -> that input's contribution to the output tangent, from its tangent `t`
(a numpy array), all primals `p` (arrays or python numbers), the output values `out` and the
node's attributes `a`; None for an input the output does not depend on differentiably. An op
with any number of inputs (cat, stack) gives one function `jvp(tangents, p, out, a)` instead.
The engine sums the contributions of the inputs that have a tangent and broadcasts and casts
the sum to the output once (rules never unbroadcast); for view ops (`_jvp_view`) it keeps the
rule's numpy view, so a view's tangent aliases its base's tangent as in torch. Tangents are
plain Tensors without history, except when an input requires grad (grad mode on): then the
tangent is built from engine ops and has one, as torch's (engine/forward_ad_diff.py).
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable
from typing import Any

import numpy as np

from detachviz.engine import forward_ad_diff as _diff
from detachviz.engine import function as kit
from detachviz.engine import state
from detachviz.engine.node import Node
from detachviz.engine.ops.view import VIEW
from detachviz.engine.tensor import Tensor, wrap

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]

# the level, the hooks and the tensors given a tangent at the level are process-wide state:
# `state.fw_level`, `state.fw_hooks`, `state.fw_live`

NO_LEVEL = (
    "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
    "enter_dual_level() first."
)
NESTED = "Nested forward mode AD is not supported at the moment"
ALREADY_DUAL = (
    "Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
    "level 0 is not supported."
)
EXIT_NOT_LAST = (
    "Trying to exit a forward AD level that was not the last one that was created. This is not "
    "supported."
)
BAD_LEVEL = "Dual level must be a positive number."


# --------------------------------------------------------------------------------------------
# the public API (torch/autograd/forward_ad.py)
# --------------------------------------------------------------------------------------------
def enter_dual_level() -> int:
    """Enter the (single) dual level; return its number, 0."""
    if state.fw_level >= 0:
        raise RuntimeError(NESTED)
    state.fw_level = 0
    state.fw_hooks = _HOOKS
    return state.fw_level


def exit_dual_level(*, level: int | None = None) -> None:
    """Leave the dual level: every tangent made in it is deleted."""
    if level is None:
        level = state.fw_level
    if level != state.fw_level:
        raise RuntimeError(EXIT_NOT_LAST)
    if level < 0:
        raise RuntimeError(BAD_LEVEL)
    for t in list(state.fw_live):
        t._fw_tangent = None
    state.fw_live.clear()
    state.fw_hooks = None
    state.fw_level = level - 1


class dual_level:  # noqa: N801 - torch's name
    """Context manager (and decorator) entering and exiting the dual level."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc: object) -> None:
        exit_dual_level()

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with dual_level():
                return fn(*args, **kwargs)

        wrapped.__name__ = getattr(fn, "__name__", "wrapped")
        wrapped.__doc__ = fn.__doc__
        return wrapped


_UnpackedDualTensor = namedtuple("_UnpackedDualTensor", ["primal", "tangent"])


class UnpackedDualTensor(_UnpackedDualTensor):
    """What unpack_dual returns: `(primal, tangent)` with those field names."""

    __slots__ = ()


UnpackedDualTensor.__module__ = "torch.autograd.forward_ad"

IDENTITY = _diff.IDENTITY  # unpack_dual's primal: torch's _fw_primal, an Identity alias


def _check_level(level: int | None) -> int:
    lvl = state.fw_level if level is None else level
    if lvl != state.fw_level or lvl < 0:
        raise RuntimeError(NO_LEVEL)
    return lvl


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of `tensor` (same storage, backward-differentiable) carrying `tangent`."""
    _check_level(level)
    if not tensor._dtype.is_floating_point:
        raise ValueError(
            f"Expected primal to be floating point or complex, but got: {tensor.dtype}"
        )
    if not tangent._dtype.is_floating_point:
        raise ValueError(
            f"Expected tangent to be floating point or complex, but got: {tangent.dtype}"
        )
    if tensor._fw_tangent is not None:
        raise RuntimeError(ALREADY_DUAL)
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            "original Tensor, this is not supported. Tensor is of size "
            f"[{', '.join(map(str, tensor._data.shape))}] while the given forward gradient is of "
            f"size [{', '.join(map(str, tangent._data.shape))}]."
        )
    shape = tensor._data.shape
    out = kit.view(VIEW, "make_dual", tensor, tensor._data.view(), (shape,))
    # NOTE: torch stores the given tangent itself (unpack_dual(x).tangent is tangent), so
    # in-place ops on the dual tensor also write into the caller's tangent tensor.
    _set_tangent(out, tangent)
    return out


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """`(primal, tangent)`: the primal a view of `tensor`, the tangent None if it has none.
    With no level active, returns `(tensor, None)`."""
    lvl = state.fw_level if level is None else level
    if lvl < 0:
        return UnpackedDualTensor(tensor, None)
    primal = kit.view(IDENTITY, "unpack_dual", tensor, tensor._data.view())
    primal._fw_tangent = None
    return UnpackedDualTensor(primal, tensor._fw_tangent)


def _set_tangent(t: Tensor, tangent: Tensor) -> None:
    t._fw_tangent = tangent
    state.fw_live.add(t)


# --------------------------------------------------------------------------------------------
# propagation: the hooks the op kit calls while a level is active (op, inplace, views)
# --------------------------------------------------------------------------------------------
def _tangents(ins: tuple[Any, ...]) -> list[Any] | None:
    """The inputs' tangent arrays (None where absent), or None when no input has one."""
    found = False
    out: list[Any] = []
    for x in ins:
        t = x._fw_tangent if isinstance(x, Tensor) else None
        if t is None:
            out.append(None)
        else:
            out.append(t._data)
            found = True
    return out if found else None


def _primals(ins: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(x._data if isinstance(x, Tensor) else x for x in ins)


def _rules(cls: type[Node] | None, name: str) -> Any:
    rules = None if cls is None else cls._jvp
    if rules is None:
        raise NotImplementedError(
            f"Trying to use forward AD with {name} that does not support it because it has not "
            "been implemented yet (detachviz has no JVP rule for it)."
        )
    return rules


def _named(cls: type[Node], attrs: tuple[Any, ...]) -> Any:
    """The op's attributes as its rules read them (by name, `a.dim`, where the class names
    them)."""
    named = cls._Attrs
    if named is None or not attrs or attrs.__class__ is not tuple:
        return attrs
    return tuple.__new__(named, attrs)


def _combine(rules: Any, tans: list[Any], p: tuple[Any, ...], out: np.ndarray, a: Any) -> Any:
    # NOTE: tangents follow IEEE like the primals (sqrt'(0) = inf), silently, as torch does
    with np.errstate(all="ignore"):
        if callable(rules):  # a whole-op rule (cat, stack: any number of inputs)
            return rules(tans, p, out, a)
        res = None
        for rule, t in zip(rules, tans):
            if rule is None or t is None:
                continue
            c = rule(t, p, out, a)
            res = c if res is None else res + c
    return res


def _fresh(res: Any, out: np.ndarray, tans: list[Any]) -> np.ndarray:
    """The tangent as an array of the output's shape and dtype that no one else holds (0 when
    `res` is None): a rule's fresh result is kept, an input's tangent (identity rules) copied."""
    if res is None:
        return np.zeros(out.shape, dtype=out.dtype)
    if type(res) is np.ndarray and res.shape == out.shape:
        if res.dtype == out.dtype and res.flags.owndata and not any(res is t for t in tans):
            return res
        return res.astype(out.dtype)
    return np.array(np.broadcast_to(res, out.shape), dtype=out.dtype)


def op(cls: type[Node] | None, ins: tuple[Any, ...], out: Tensor, attrs: tuple[Any, ...]) -> None:
    """Give `out` its tangent after an out-of-place op (`cls` None: not differentiable)."""
    for x in ins:
        if isinstance(x, Tensor) and x._fw_tangent is not None:
            break
    else:
        return  # the common case inside a level: no input carries a tangent
    if cls is None or not out._dtype.is_floating_point:
        return
    tans = _tangents(ins)
    if tans is None:
        return
    od = out._data
    if state.grad_enabled and (out._requires_grad or _any_tangent_requires_grad(ins)):
        # the tangent needs a history (backward-of-forward): built from engine ops
        a = _named(cls, attrs)

        def numpy_tangent() -> Any:
            return _combine(_rules(cls, cls._name), tans, _primals(ins), od, a)

        _set_tangent(out, _diff.tangent(cls, ins, out, a, numpy_tangent))
        return
    rules = _rules(cls, cls._name)
    res = _combine(rules, tans, _primals(ins), od, _named(cls, attrs))
    if res is None:
        return  # only non-differentiable inputs carry tangents (a mask, an index, ...)
    if cls._jvp_view and res.dtype == od.dtype:
        # NOTE: a view's tangent is the same view of its input's tangent (torch aliases them:
        # same storage, same version counter, `_base` the input tangent's base)
        src = ins[0]._fw_tangent
        tangent = wrap(res, out._dtype)
        tangent._storage = src._storage
        tangent._vc = src._share_vc()
        tangent._base = src if src._base is None else src._base
    else:
        tangent = wrap(_fresh(res, od, tans), out._dtype)
    _set_tangent(out, tangent)


def _any_tangent_requires_grad(ins: tuple[Any, ...]) -> bool:
    for x in ins:
        if isinstance(x, Tensor):
            t = x._fw_tangent
            if t is not None and t._requires_grad:
                return True
    return False


def inplace(
    x: Tensor, cls: type[Node] | None, others: tuple[Any, ...], attrs: tuple[Any, ...], new: Any
) -> None:
    """Update x's tangent for an in-place op, called before `new` is written into x (so
    `x._data` still holds the old primal). The tangent is written in place: views of x and
    the tensor given to make_dual see it, as in torch."""
    if cls is None or not x._dtype.is_floating_point:
        return
    ins = (x, *others)
    tans = _tangents(ins)
    if tans is None:
        return
    _refuse_history(f"the in-place {cls._name}", ins)
    xd = x._data
    res = _combine(_rules(cls, cls._name), tans, _primals(ins), np.asarray(new), _named(cls, attrs))
    xt = x._fw_tangent
    if xt is None:
        xt = _zero_tangent(x)
    elif not xt._data.flags.writeable:
        return  # an expanded tangent: the primal write that follows raises torch's error
    np.copyto(xt._data, np.broadcast_to(res, xd.shape) if res is not None else 0)


def _refuse_history(what: str, ins: tuple[Any, ...]) -> None:
    """Refuse an op whose tangent torch would give a history (grad mode on and an input, or
    its tangent, requiring grad) where detachviz builds only the out-of-place ops' history:
    a tangent silently without one would differ from torch's."""
    if state.grad_enabled and (
        _any_tangent_requires_grad(ins)
        or any(isinstance(x, Tensor) and x._requires_grad for x in ins)
    ):
        raise NotImplementedError(
            f"forward AD: {what} on a tensor that requires grad (its tangent would need a "
            "history) is not supported by detachviz; do it out of place or under torch.no_grad()"
        )


def _zero_tangent(x: Tensor) -> Tensor:
    """A zero tangent for x; for a view, the same view of (a zero tangent of) its base."""
    base = x._base
    if base is None:
        t = wrap(np.zeros_like(x._data), x._dtype)
        _set_tangent(x, t)
        return t
    bt = base._fw_tangent
    if bt is None:
        bt = _zero_tangent(base)
    return _alias(base, bt, x)


def _elem_strides(a: np.ndarray) -> tuple[int, ...]:
    return tuple(s // a.itemsize for s in a.strides)


def _alias(src: Tensor, tangent: Tensor, view: Tensor) -> Tensor:
    """Give `view` (a view of `src`) the same view of `src`'s tangent, located from its offset
    and strides within `src`; the tangent is first given the primal's layout if they differ."""
    sd, td = src._data, tangent._data
    owner_t = tangent
    if _elem_strides(sd) != _elem_strides(td):
        # NOTE: the views then alias this relaid copy, not the tangent the caller holds
        td = np.empty_like(sd, dtype=td.dtype)
        td[...] = tangent._data
        if _elem_strides(sd) != _elem_strides(td):
            raise NotImplementedError(
                "forward AD: this view of a tensor whose tangent has another memory layout is "
                "not supported by detachviz"
            )
        owner_t = wrap(td, tangent._dtype)
    owner = td
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    t_start = td.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    vd = view._data
    k = (vd.__array_interface__["data"][0] - sd.__array_interface__["data"][0]) // sd.itemsize
    arr = np.ndarray(
        vd.shape,
        td.dtype,
        buffer=owner,
        offset=t_start + (k if vd.size else 0) * td.itemsize,
        strides=tuple(e * td.itemsize for e in _elem_strides(vd)),
    )
    t = wrap(arr, tangent._dtype)
    t._storage = owner_t._storage
    t._vc = owner_t._share_vc()
    t._base = owner_t if owner_t._base is None else owner_t._base
    _set_tangent(view, t)
    return t


def views(cls: type[Node] | None, x: Tensor, outs: list[Tensor]) -> None:
    """Tangents for the outputs of a multi-output view op (split, chunk, unbind): the same
    views of x's tangent (the rule of a node class made with `jvp_view=True`)."""
    xt = x._fw_tangent
    if xt is None or not x._dtype.is_floating_point:
        return
    _refuse_history("a multi-output view (split, chunk, unbind)", (x,))
    if cls is None or not cls._jvp_view:
        _rules(None if cls is None else cls, "a multi-output view")
    for out in outs:
        _alias(x, xt, out)


class _Hooks:
    """What `state.fw_hooks` points at while a level is active."""

    op = staticmethod(op)
    inplace = staticmethod(inplace)
    views = staticmethod(views)


_HOOKS = _Hooks()
