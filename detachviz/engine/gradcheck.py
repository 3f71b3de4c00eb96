"""torch.autograd.gradcheck / gradgradcheck: the analytical Jacobian (one backward per output
element) against central finite differences, compared as torch compares them
(|a - n| <= atol + rtol * |n|), failing with torch's GradcheckError text."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine import grad_mode
from detachviz.engine.autograd import grad as _grad
from detachviz.engine.tensor import Tensor, wrap


class GradcheckError(RuntimeError):
    """torch.autograd.gradcheck.GradcheckError: a gradient check failed."""


GradcheckError.__module__ = "torch.autograd.gradcheck"


def _as_tuple(x: Any) -> tuple[Any, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _check_inputs(inputs: tuple[Any, ...]) -> None:
    any_rg = False
    for idx, t in enumerate(inputs):
        if isinstance(t, Tensor) and t.requires_grad:
            if t._dtype is not dtypes.float64:
                warnings.warn(
                    f"Input #{idx} requires gradient and is not a double precision floating "
                    "point or complex. This check will likely fail if all the inputs are not "
                    "of double precision floating point or complex. ",
                    UserWarning,
                    stacklevel=3,
                )
            any_rg = True
    if not any_rg:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of "
            "them have requires_grad=True."
        )


def _outputs(out: Any) -> tuple[Tensor, ...]:
    return tuple(t for t in _as_tuple(out) if isinstance(t, Tensor) and t.requires_grad)


def _numerical(
    func: Callable[..., Any], inputs: tuple[Any, ...], k: int, n_out: int, eps: float
) -> list[np.ndarray]:
    """d outputs / d inputs[k] by central differences, one (in numel, out numel) matrix per
    differentiable output: each input element is moved by -eps and +eps in place."""
    x = inputs[k]
    flat = x._data.reshape(-1)  # NOTE: a view of the input's own storage
    cols: list[list[np.ndarray]] = [[] for _ in range(n_out)]
    for j in range(flat.size):
        orig = flat[j].copy()
        flat[j] = orig - eps
        outa = [o._data.copy() for o in _all_float_outputs(func(*inputs))]
        flat[j] = orig + eps
        outb = [o._data.copy() for o in _all_float_outputs(func(*inputs))]
        flat[j] = orig
        for i in range(n_out):
            cols[i].append(((outb[i] - outa[i]) / (2 * eps)).reshape(-1))
    return [np.stack(c) if c else np.zeros((0, 0)) for c in cols]


def _all_float_outputs(out: Any) -> list[Tensor]:
    return [t for t in _as_tuple(out) if isinstance(t, Tensor) and t._dtype.is_floating_point]


def _analytical(outputs: tuple[Tensor, ...], inputs: tuple[Any, ...], k: int, i: int) -> np.ndarray:
    x = inputs[k]
    out = outputs[i]
    jac = np.zeros((x.numel(), out.numel()), dtype=x._data.dtype)
    for j in range(out.numel()):
        go = np.zeros(out._data.size, dtype=out._data.dtype)
        go[j] = 1
        (g,) = _grad(
            out,
            (x,),
            wrap(go.reshape(out._data.shape), out._dtype),
            retain_graph=True,
            allow_unused=True,
        )
        if g is not None:
            jac[:, j] = g._data.reshape(-1)
    return jac


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """True when every analytical Jacobian matches the numerical one; otherwise raises
    GradcheckError (or returns False with raise_exception=False)."""
    for flag, value in (
        ("check_batched_grad", check_batched_grad),
        ("check_batched_forward_grad", check_batched_forward_grad),
        ("check_forward_ad", check_forward_ad),
        ("fast_mode", fast_mode),
    ):
        if value:
            raise NotImplementedError(
                f"torch.autograd.gradcheck({flag}=True) is not supported by detachviz"
            )
    if masked:
        raise NotImplementedError("torch.autograd.gradcheck(masked=True) is not supported")
    try:
        return _check(func, inputs, eps, atol, rtol, check_backward_ad)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _check(
    func: Callable[..., Any],
    inputs: Any,
    eps: float,
    atol: float,
    rtol: float,
    check_backward_ad: bool,
) -> bool:
    ins = _as_tuple(inputs)
    _check_inputs(ins)
    with grad_mode.enable_grad():
        outputs = _outputs(func(*ins))
    if not check_backward_ad:
        return True
    n_out = len(_all_float_outputs(func(*ins)))
    float_idx = {id(o): n for n, o in enumerate(_all_float_outputs(outputs))}
    for k, x in enumerate(ins):
        if not (isinstance(x, Tensor) and x.requires_grad):
            continue
        num = _numerical(func, ins, k, n_out, eps)
        for i, out in enumerate(outputs):
            a = _analytical(outputs, ins, k, i)
            n = num[float_idx.get(id(out), i)]
            if not np.all(np.abs(a - n) <= atol + rtol * np.abs(n)):
                raise GradcheckError(
                    f"Jacobian mismatch for output {i:d} with respect to input {k:d},\n"
                    f"numerical:{wrap(n.astype(a.dtype), x._dtype)}\n"
                    f"analytical:{wrap(a, x._dtype)}\n"
                )
    return True


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """gradcheck of the function's backward: inputs and grad_outputs in, gradients out.
    Without grad_outputs, random ones are drawn from the global generator in [-1, 1) as
    torch draws them (so the random stream after a call matches torch's)."""
    ins = _as_tuple(inputs)
    if grad_outputs is None:
        with grad_mode.enable_grad():
            outs = _outputs(func(*ins))
        gos: tuple[Any, ...] = tuple(
            wrap(np.zeros(o._data.shape, o._data.dtype), o._dtype)
            .uniform_(-1, 1)
            .requires_grad_(True)
            for o in outs
        )
    else:
        gos = _as_tuple(grad_outputs)
    n_go = len(gos)
    diff_in = [i for i, x in enumerate(ins) if isinstance(x, Tensor) and x.requires_grad]
    diff_go = {i for i, g in enumerate(gos) if g.requires_grad}

    def new_func(*args: Any) -> tuple[Tensor, ...]:
        xs = args[:-n_go]
        outs = _outputs(func(*xs))
        go = tuple(g.requires_grad_() if i in diff_go else g for i, g in enumerate(args[-n_go:]))
        gi = _grad(outs, tuple(xs[i] for i in diff_in), go, create_graph=True, allow_unused=True)
        return tuple(g for g in gi if g is not None)

    return gradcheck(
        new_func,
        ins + gos,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        check_forward_ad=check_fwd_over_rev,
        check_backward_ad=check_rev_over_rev,
        fast_mode=fast_mode,
        masked=masked,
    )
