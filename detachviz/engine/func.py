"""`torch.func`: grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, vmap and
functional_call, as function transforms over the engine's reverse mode.

Each transform differentiates at a fresh leaf (or, when the argument already takes part in
an outer differentiation, at a view of it with create_graph), so transforms nest:
`jacrev(jacrev(f))`, `vmap(grad(f))`. vmap runs the function once per batch entry and
stacks the results: exact for functions without randomness."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import numpy as np

from detachviz.engine import forward_ad as fwad
from detachviz.engine import grad_mode, state
from detachviz.engine.autograd import grad as _grad
from detachviz.engine.namespace import module_getattr as refusing_getattr
from detachviz.engine.ops.join import stack
from detachviz.engine.tensor import Tensor, wrap

__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "stack_module_state",
    "vjp",
    "vmap",
]


def _argnums(argnums: Any, n: int) -> tuple[int, ...]:
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    for a in nums:
        if not isinstance(a, int):
            raise RuntimeError(
                f"argnums must be int or Tuple[int, ...], got: {type(argnums).__name__}"
            )
        if not -n <= a < n:
            raise RuntimeError(f"Got argnum={a}, but only {n} positional inputs")
    return tuple(a % n for a in nums)


def _wrap_input(x: Any) -> Any:
    """The tensor a transform differentiates at (tuples/lists/dicts of tensors too)."""
    if isinstance(x, Tensor):
        if x.requires_grad:
            return x.view_as(x)  # keep the outer level's history: nested transforms
        return x.detach().requires_grad_(True)
    if isinstance(x, (tuple, list)):
        return type(x)(_wrap_input(v) for v in x)
    if isinstance(x, dict):
        return {k: _wrap_input(v) for k, v in x.items()}
    raise TypeError(f"Expected tensors, got unsupported type {type(x)}")


def _leaves(x: Any) -> list[Tensor]:
    """The tensors of a (nested) tuple/list/dict, in order."""
    out: list[Tensor] = []
    stack_: list[Any] = [x]
    while stack_:
        v = stack_.pop()
        if isinstance(v, Tensor):
            out.append(v)
        elif isinstance(v, (tuple, list)):
            stack_.extend(reversed(v))
        elif isinstance(v, dict):
            stack_.extend(reversed(list(v.values())))
    return out


def _rebuild(like: Any, values: Iterator[Any]) -> Any:
    if isinstance(like, Tensor):
        return next(values)
    if isinstance(like, (tuple, list)):
        return type(like)(_rebuild(v, values) for v in like)
    if isinstance(like, dict):
        return {k: _rebuild(v, values) for k, v in like.items()}
    return like


def _reaches_other_leaves(out: Any, args: Any) -> bool:
    """Does `out` depend on a tensor requiring grad other than the transform's own inputs
    (a module's parameters, a captured tensor)? Then, as in torch, results keep their
    history. Walks the backward graph with an explicit stack."""
    mine = {id(t) for t in _leaves(list(args))}
    stack_ = [t.grad_fn for t in _leaves(out) if isinstance(t, Tensor) and t.grad_fn is not None]
    seen: set[int] = set()
    while stack_:
        fn = stack_.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        var = getattr(fn, "variable", None)
        if var is not None and id(var) not in mine:
            return True
        stack_.extend(e[0] for e in fn.next_functions)
    return False


def _finish(x: Any, keep: bool) -> Any:
    if isinstance(x, Tensor):
        return x if keep else x.detach()
    if isinstance(x, (tuple, list)):
        return type(x)(_finish(v, keep) for v in x)
    if isinstance(x, dict):
        return {k: _finish(v, keep) for k, v in x.items()}
    return x


def _zeros(t: Tensor) -> Tensor:
    return wrap(np.zeros_like(t._data), t._dtype)


def grad_and_value(
    func: Callable[..., Any], argnums: Any = 0, has_aux: bool = False
) -> Callable[..., Any]:
    """A function returning (gradient of func w.r.t. args[argnums], func's value)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums(argnums, len(args))
        with grad_mode.enable_grad():
            outer = _leaves([args[i] for i in nums])
            keep = any(t.requires_grad for t in outer)
            new_args = list(args)
            for i in nums:
                new_args[i] = _wrap_input(args[i])
            out = func(*new_args, **kwargs)
            keep = keep or _reaches_other_leaves(out, new_args)
            aux = None
            if has_aux:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise RuntimeError(
                        "grad_and_value(f)(*args): output of function f should be a tuple: "
                        "(output, aux) if has_aux is True"
                    )
                out, aux = out
            if not isinstance(out, Tensor):
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                    f"{type(out)}"
                )
            if out.dim() != 0:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, "
                    f"got tensor with {out.dim()} dims. Maybe you wanted to use the vjp or "
                    "jacrev APIs instead?"
                )
            targets = tuple(new_args[i] for i in nums)
            flat = _leaves(targets)
            if out.requires_grad:
                gs = _grad(out, tuple(flat), create_graph=keep, allow_unused=True)
            else:
                gs = (None,) * len(flat)
            gs = tuple(_zeros(t) if g is None else g for g, t in zip(gs, flat))
            g_tree = _rebuild(targets, iter(gs))
            g_out = g_tree if isinstance(argnums, tuple) else g_tree[0]
        value = _finish(out, keep)
        if has_aux:
            return _finish(g_out, keep), (value, _finish(aux, keep))
        return _finish(g_out, keep), value

    return wrapper


def grad(func: Callable[..., Any], argnums: Any = 0, has_aux: bool = False) -> Callable[..., Any]:
    """A function returning the gradient of the scalar func w.r.t. args[argnums]."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, value = gv(*args, **kwargs)
        if has_aux:
            return g, value[1]
        return g

    return wrapper


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> Any:
    """(func(*primals), vjp_fn[, aux]): vjp_fn(cotangents) gives one gradient per primal."""
    with grad_mode.enable_grad():
        outer = _leaves(list(primals))
        keep = any(t.requires_grad for t in outer)
        ins = [_wrap_input(p) for p in primals]
        out = func(*ins)
        keep = keep or _reaches_other_leaves(out, ins)
        aux = None
        if has_aux:
            out, aux = out
    flat_in = _leaves(ins)
    flat_out = _leaves(out)

    def vjp_fn(cotangents: Any, retain_graph: bool = True, create_graph: bool | None = None) -> Any:
        cts = _leaves(cotangents)
        if len(cts) != len(flat_out):
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure "
                "of outputs to the function."
            )
        cg = keep if create_graph is None else create_graph
        with grad_mode.enable_grad():
            pairs = [(o, c) for o, c in zip(flat_out, cts) if o.requires_grad]
            if pairs:
                gs = _grad(
                    tuple(o for o, _ in pairs), tuple(flat_in), tuple(c for _, c in pairs),
                    retain_graph=True, create_graph=cg, allow_unused=True,
                )  # fmt: skip
            else:
                gs = (None,) * len(flat_in)
        gs = tuple(_zeros(t) if g is None else _finish(g, cg) for g, t in zip(gs, flat_in))
        return tuple(_rebuild(tuple(ins), iter(gs)))

    if has_aux:
        return _finish(out, keep), vjp_fn, _finish(aux, keep)
    return _finish(out, keep), vjp_fn


def jvp(
    func: Callable[..., Any], primals: Any, tangents: Any, *, strict: bool = False,
    has_aux: bool = False,
) -> Any:  # fmt: skip
    """(func(*primals), J @ tangents), by the double-backward trick."""
    if not isinstance(primals, tuple):
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be "
            "valid to call f(*primals)."
        )
    if not isinstance(tangents, tuple) or len(tangents) != len(primals):
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals and tangents to have the same python "
            "structure."
        )
    with grad_mode.enable_grad():
        keep = any(t.requires_grad for t in _leaves(primals))
        ins = [_wrap_input(p) for p in primals]
        out = func(*ins)
        keep = keep or _reaches_other_leaves(out, ins)
        aux = None
        if has_aux:
            out, aux = out
        flat_in = _leaves(ins)
        flat_out = _leaves(out)
        us = [_zeros(o).requires_grad_(True) for o in flat_out]
        pairs = [(o, u) for o, u in zip(flat_out, us) if o.requires_grad]
        gi = (
            _grad(tuple(o for o, _ in pairs), tuple(flat_in), tuple(u for _, u in pairs),
                  create_graph=True, allow_unused=True)
            if pairs else (None,) * len(flat_in)
        )  # fmt: skip
        tans = _leaves(tangents)
        pairs2 = [(g, v) for g, v in zip(gi, tans) if g is not None]
        gu = (
            _grad(tuple(g for g, _ in pairs2), tuple(us), tuple(v for _, v in pairs2),
                  create_graph=keep, allow_unused=True)
            if pairs2 else (None,) * len(us)
        )  # fmt: skip
        res = [_zeros(o) if g is None else g for g, o in zip(gu, flat_out)]
    out_t = _rebuild(out, iter(res))
    if has_aux:
        return _finish(out, keep), _finish(out_t, keep), _finish(aux, keep)
    return _finish(out, keep), _finish(out_t, keep)


def jacrev(
    func: Callable[..., Any], argnums: Any = 0, *, has_aux: bool = False,
    chunk_size: int | None = None,
) -> Callable[..., Any]:  # fmt: skip
    """A function returning the Jacobian of func w.r.t. args[argnums] (one backward pass per
    output element): shape `out.shape + arg.shape`."""

    @functools.wraps(func)
    def wrapper(*args: Any) -> Any:
        nums = _argnums(argnums, len(args))
        with grad_mode.enable_grad():
            keep = any(t.requires_grad for t in _leaves([args[i] for i in nums]))
            new_args = list(args)
            for i in nums:
                new_args[i] = _wrap_input(args[i])
            out = func(*new_args)
            keep = keep or _reaches_other_leaves(out, new_args)
            aux = None
            if has_aux:
                out, aux = out
            targets = tuple(new_args[i] for i in nums)
            flat_in = _leaves(targets)
            jacs_per_out = []
            for o in _leaves(out):
                flat = o.reshape(-1)
                rows: list[list[Tensor]] = [[] for _ in flat_in]
                for j in range(flat.numel()):
                    gs = (
                        _grad(flat[j], tuple(flat_in), retain_graph=True, create_graph=keep,
                              allow_unused=True)
                        if o.requires_grad else (None,) * len(flat_in)
                    )  # fmt: skip
                    for k, (g, x) in enumerate(zip(gs, flat_in)):
                        rows[k].append(_zeros(x) if g is None else g)
                jac = [
                    stack(r).reshape(*o.shape, *x.shape)
                    if r
                    else wrap(np.zeros(o.shape + x.shape, x._data.dtype), x._dtype)
                    for r, x in zip(rows, flat_in)
                ]
                tree = _rebuild(targets, iter(jac))
                jacs_per_out.append(_finish(tree if isinstance(argnums, tuple) else tree[0], keep))
        result = _rebuild(out, iter(jacs_per_out))
        if has_aux:
            return result, _finish(aux, keep)
        return result

    return wrapper


def jacfwd(
    func: Callable[..., Any], argnums: Any = 0, has_aux: bool = False, *,
    randomness: str = "error",
) -> Callable[..., Any]:  # fmt: skip
    """The Jacobian by forward mode, one column per input element (a one-hot tangent), so
    its values (down to the sign of a zero) are torch's. For what forward mode here cannot
    do (nested in another transform, several arguments or outputs) it is jacrev's Jacobian,
    the same numbers."""
    rev = jacrev(func, argnums, has_aux=has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any) -> Any:
        if isinstance(argnums, tuple) or has_aux:
            return rev(*args)
        (i,) = _argnums(argnums, len(args))
        x = args[i]
        if (
            not isinstance(x, Tensor)
            or state.fw_level >= 0  # inside a dual level already: forward AD does not nest
            or any(t.requires_grad for t in _leaves(list(args)))
        ):
            return rev(*args)
        try:
            return _forward_jacobian(func, args, i, x)
        except NotImplementedError:
            return rev(*args)  # an op without a forward-mode rule: the same numbers, reversed

    return wrapper


def _forward_jacobian(func: Callable[..., Any], args: tuple[Any, ...], i: int, x: Tensor) -> Any:
    """The Jacobian w.r.t. args[i] by forward mode: column j is the tangent of the output for
    the one-hot tangent e_j; NotImplementedError when forward mode cannot give it."""
    cols = []
    out: Any = None
    for j in range(x.numel()):
        onehot = np.zeros(x._data.size, x._data.dtype)
        onehot[j] = 1
        with fwad.dual_level():
            new_args = list(args)
            new_args[i] = fwad.make_dual(x, wrap(onehot.reshape(x._data.shape), x._dtype))
            res = func(*new_args)
            if not isinstance(res, Tensor):
                raise NotImplementedError("jacfwd of a function that does not return a Tensor")
            primal, tangent = fwad.unpack_dual(res)
            if primal.requires_grad:
                # parameters requiring grad: the Jacobian must carry their history, which
                # tangents here do not (no forward-over-reverse)
                raise NotImplementedError("jacfwd through tensors that require grad")
            out = primal
            cols.append(_zeros(primal) if tangent is None else tangent)
    if not cols:
        raise NotImplementedError("jacfwd with respect to an empty tensor")
    return stack([c.reshape(-1) for c in cols], -1).reshape(*out.shape, *x.shape)


def hessian(func: Callable[..., Any], argnums: Any = 0) -> Callable[..., Any]:
    """The Hessian of a scalar func: the Jacobian of its Jacobian."""
    return jacrev(jacrev(func, argnums), argnums)


def vmap(
    func: Callable[..., Any],
    in_dims: Any = 0,
    out_dims: Any = 0,
    randomness: str = "error",
    *,
    chunk_size: int | None = None,
) -> Callable[..., Any]:
    """func mapped over a batch dimension: called once per batch entry (the entry selected
    along in_dims; None passes an argument unbatched), results stacked along out_dims."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            f"Only allowed values for randomness are 'error', 'different', or 'same'. Got "
            f"{randomness}"
        )

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(
                f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                f"compatible with the structure of `inputs`. in_dims has structure "
                f"{len(dims)} but inputs has structure {len(args)}."
            )
        sizes = set()
        for a, d in zip(args, dims):
            if d is None:
                continue
            for t in _leaves(a):
                sizes.add(t.shape[d])
        if not sizes:
            raise ValueError(
                f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): at least one input "
                "must be batched (in_dims not None)"
            )
        if len(sizes) != 1:
            raise ValueError(
                f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Expected all tensors "
                "to have the same size in the mapped dimension"
            )
        (n,) = sizes
        results = []
        for b in range(n):
            sliced = [
                a if d is None else _rebuild(a, iter(_select(t, d, b) for t in _leaves(a)))
                for a, d in zip(args, dims)
            ]
            results.append(func(*sliced, **kwargs))
        first = results[0]
        flat = [_leaves(r) for r in results]
        odims = out_dims if isinstance(out_dims, tuple) else (out_dims,) * len(flat[0])
        stacked = [
            stack([f[k] for f in flat], odims[k] if odims[k] is not None else 0)
            for k in range(len(flat[0]))
        ]
        return _rebuild(first, iter(stacked))

    return wrapper


def _select(t: Tensor, dim: int, index: int) -> Tensor:
    return t[(slice(None),) * (dim % t.dim()) + (index,)]


def _name(func: Callable[..., Any]) -> str:
    return getattr(func, "__name__", repr(func))


@contextmanager
def _substituted(module: Any, values: Mapping[str, Any], strict: bool) -> Iterator[None]:
    """Temporarily put `values` (dotted names) in place of the module's parameters and
    buffers, bypassing Parameter checks as torch's functional_call does; restored after."""
    known = {n for n, _ in module.named_parameters(remove_duplicate=False)} | {
        n for n, _ in module.named_buffers(remove_duplicate=False)
    }
    if strict:
        missing = sorted(known - set(values))
        unexpected = sorted(set(values) - known)
        if missing or unexpected:
            parts = []
            if unexpected:
                parts.append("Unexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected))
            if missing:
                parts.append("Missing key(s): " + ", ".join(f"'{k}'" for k in missing))
            raise RuntimeError(
                "Error(s) in reparametrizing for " + type(module).__name__ + ":\n\t"
                + ".\n\t".join(parts) + "."
            )  # fmt: skip
    saved: list[tuple[dict[str, Any], str, Any, bool]] = []
    try:
        for name, value in values.items():
            owner = module
            *path, leaf = name.split(".")
            for p in path:
                owner = getattr(owner, p)
            d = owner.__dict__
            for table in ("_parameters", "_buffers"):
                if leaf in d.get(table, {}):
                    saved.append((d[table], leaf, d[table][leaf], True))
                    d[table][leaf] = value
                    break
            else:
                had = leaf in d
                saved.append((d, leaf, d.get(leaf), had))
                d[leaf] = value
        yield
    finally:
        for table, leaf, old, had in reversed(saved):
            if had:
                table[leaf] = old
            else:
                table.pop(leaf, None)


def stack_module_state(models: Any) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """(params, buffers) of same-shaped models, each entry stacked along a new dim 0: the
    parameters as new leaves (requiring grad when every model's does), for vmap ensembles."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) != 1:
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    if len({type(m) for m in models}) != 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = {}
    for name, _ in models[0].named_parameters():
        ts = [dict(m.named_parameters())[name] for m in models]
        rg = all(t.requires_grad for t in ts)
        params[name] = stack([t.detach() for t in ts]).requires_grad_(rg)
    buffers = {
        name: stack([dict(m.named_buffers())[name] for m in models])
        for name, _ in models[0].named_buffers()
    }
    return params, buffers


def functional_call(
    module: Any,
    parameter_and_buffer_dicts: Any,
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """module(*args, **kwargs) with the given tensors in place of its parameters/buffers."""
    if isinstance(parameter_and_buffer_dicts, (tuple, list)):
        merged: dict[str, Any] = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                if k in merged:
                    raise ValueError(
                        f"{k} appeared in multiple dictionaries; behavior of functional call "
                        "is ambiguous"
                    )
            merged.update(d)
    else:
        merged = dict(parameter_and_buffer_dicts)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _substituted(module, merged, strict):
        return module(*args, **(kwargs or {}))


# a name torch has and detachviz lacks is refused clearly (engine/unsupported.py)
__getattr__ = refusing_getattr(globals(), "torch.func", {}, methods=False)
