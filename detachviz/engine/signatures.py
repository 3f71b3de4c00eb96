"""torch's call forms, one mechanism for every namespace function and Tensor method: each
row names the parameters torch's function takes positionally (the method form drops the
leading `input`), so `torch.add(input=x, other=y)`, `x.add(other=y)`, `torch.sum(x,
dim=1)`, `torch.ones(size=(2, 3))` and `x.view(size=...)` reach the engine's functions,
whatever their own parameter names; `out=` (on the rows marked so) writes the result into
the given tensor as torch does: resized when its shape differs (with torch's warning when
it was not empty), cast to its dtype where torch can cast, refused when autograd is
involved. `bind_namespace` (torch/__init__.py) and `bind_methods` (methods.install) apply it.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from detachviz.engine import state
from detachviz.engine.deferred import Deferred
from detachviz.engine.tensor import Tensor

_UNARY = (
    "abs absolute acos arccos asin arcsin atan arctan ceil cos cosh erf exp exp2 expm1 floor "
    "frac log log10 log1p log2 neg negative reciprocal relu round rsqrt sigmoid sign sin sinh "
    "sqrt tan tanh trunc fix"
)
# torch name -> "its positional parameters; out" (`out` where torch's function takes out=)
FUNCTIONS: dict[str, str] = {
    **{name: "input; out" for name in _UNARY.split()},
    **{
        name: "input, other; out"
        for name in "add sub subtract mul multiply div divide true_divide eq ne lt le gt ge "
        "maximum minimum matmul".split()
    },
    "isclose": "input, other",
    "allclose": "input, other",
    "equal": "input, other",
    "pow": "input, exponent; out",
    "dot": "input, tensor; out",
    "mm": "input, mat2; out",
    "bmm": "input, mat2; out",
    "mv": "input, vec; out",
    "addmm": "input, mat1, mat2; out",
    "outer": "input, vec2; out",
    "ger": "input, vec2; out",
    "clamp": "input, min, max; out",
    "clip": "input, min, max; out",
    "clone": "input",
    "sum": "input, dim, keepdim; out",
    "mean": "input, dim, keepdim; out",
    "std": "input, dim",
    "var": "input, dim",
    "norm": "input, p, dim, keepdim; out",
    "max": "input, dim, keepdim; out",
    "min": "input, dim, keepdim; out",
    "amax": "input, dim, keepdim; out",
    "amin": "input, dim, keepdim; out",
    "argmax": "input, dim, keepdim; out",
    "argmin": "input, dim, keepdim; out",
    "logsumexp": "input, dim, keepdim; out",
    "softmax": "input, dim",
    "log_softmax": "input, dim",
    "cumsum": "input, dim; out",
    "cumprod": "input, dim; out",
    "any": "input, dim",
    "all": "input, dim",
    "reshape": "input, shape",
    "transpose": "input, dim0, dim1",
    "permute": "input, dims",
    "squeeze": "input, dim",
    "unsqueeze": "input, dim",
    "flatten": "input, start_dim, end_dim",
    "t": "input",
    "narrow": "input, dim, start, length",
    "split": "tensor, split_size_or_sections, dim",
    "chunk": "input, chunks, dim",
    "unbind": "input, dim",
    "cat": "tensors, dim; out",
    "concat": "tensors, dim; out",
    "concatenate": "tensors, dim; out",
    "stack": "tensors, dim; out",
    "where": "condition, input, other; out",
    "masked_fill": "input, mask, value",
    "gather": "input, dim, index; out",
    "scatter": "input, dim, index, src",
    "scatter_add": "input, dim, index, src",
    "index_select": "input, dim, index; out",
    "index_add": "input, dim, index, source; out",
    "masked_select": "input, mask; out",
    "topk": "input, k, dim, largest, sorted; out",
    "sort": "input, dim, descending; out",
    "argsort": "input, dim, descending",
    "tril": "input, diagonal; out",
    "triu": "input, diagonal; out",
    "flip": "input, dims",
    "roll": "input, shifts, dims",
    "diag": "input, diagonal; out",
    "diagonal": "input, offset, dim1, dim2",
    "diag_embed": "input, offset, dim1, dim2",
    "repeat_interleave": "input, repeats, dim",
    "tile": "input, dims",
    "lerp": "input, end, weight; out",
    "addcmul": "input, tensor1, tensor2; out",
    "addcdiv": "input, tensor1, tensor2; out",
    "det": "input",
    "inverse": "input; out",
    "logdet": "input",
    "slogdet": "input",
    "pinverse": "input",
    "ones": "size; out",
    "zeros": "size; out",
    "empty": "size; out",
    "rand": "size; out",
    "randn": "size; out",
    "full": "size, fill_value; out",
    "arange": "start, end, step; out",
    "linspace": "start, end, steps; out",
    "logspace": "start, end, steps, base; out",
    "eye": "n, m; out",
    "tensor": "data",
    "zeros_like": "input",
    "ones_like": "input",
    "empty_like": "input",
    "rand_like": "input",
    "randn_like": "input",
    "full_like": "input, fill_value",
}
# the method forms whose parameters are not the function's minus `input`
METHODS: dict[str, str] = {
    "view": "size",
    "expand": "size",
    "repeat": "repeats",
    "split": "split_size, dim",
    "new_zeros": "size",
    "new_ones": "size",
    "new_empty": "size",
    "new_full": "size, fill_value",
}


def _parse(row: str) -> tuple[tuple[str, ...], bool]:
    params, _, flags = row.partition(";")
    return tuple(p.strip() for p in params.split(",") if p.strip()), "out" in flags


def _out_error(name: str) -> RuntimeError:
    return RuntimeError(
        f"{name}(): functions with out=... arguments don't support automatic differentiation, "
        "but one of the arguments requires grad."
    )


def _kind(t: Tensor) -> int:
    d = t._dtype
    return 2 if d.is_floating_point else (0 if d.name == "bool" else 1)


# c10's names of the scalar types, as torch's out= dtype errors spell them
_C_NAMES = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def _c_name(t: Any) -> str:
    return _C_NAMES.get(t._dtype.name, t._dtype.name)


def _scalar(t: Any) -> str:
    return str(t._dtype.legacy).removesuffix("Tensor")


def _expected_dtype(k: int, want: Any, got: Any) -> str:
    return f"Expected out tensor to have dtype {_c_name(want)}, but got {_c_name(got)} instead"


def _kthvalue_dtype(k: int, want: Any, got: Any) -> str:
    if k:
        return "output indices must be of scalar type Long"
    return "output values must be of same type as input"


def _mode_dtype(k: int, want: Any, got: Any) -> str:
    slot = "indices" if k else "values"
    return f"expected scalar type '{_scalar(want)}' but got '{_scalar(got)}' for {slot} output"


def _median_dtype(k: int, want: Any, got: Any) -> str:
    if k:
        return (
            "Expected tensor for argument #1 'indices' to have scalar type Long; but got "
            f"torch.{got._dtype.legacy} instead (while checking arguments for median)"
        )
    return (
        "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; "
        f"but type torch.{got._dtype.legacy} does not equal torch.{want._dtype.legacy} (while "
        "checking arguments for median)"
    )


def _cum_dtype(k: int, want: Any, got: Any) -> str:
    return f"expected scalar_type {_scalar(want)} but found {_scalar(got)}"


def _frexp_dtype(k: int, want: Any, got: Any) -> str:
    if k:
        return f"torch.frexp() expects exponent to have int dtype but got {_c_name(got)}"
    return f"torch.frexp() expects mantissa to have dtype {_c_name(want)} but got {_c_name(got)}"


# functions returning several tensors whose out= takes a tuple: torch's name (the return
# type is torch.return_types.<name>_out) -> how torch words an out tensor of the wrong dtype
MULTI_OUT: dict[str, Callable[[int, Any, Any], str]] = {
    "aminmax": _expected_dtype,
    "cummax": _cum_dtype,
    "cummin": _cum_dtype,
    "frexp": _frexp_dtype,
    "kthvalue": _kthvalue_dtype,
    "linalg_eigh": _expected_dtype,
    "linalg_qr": _expected_dtype,
    "linalg_slogdet": _expected_dtype,
    "linalg_svd": _expected_dtype,
    "max": _expected_dtype,
    "median": _median_dtype,
    "min": _expected_dtype,
    "mode": _mode_dtype,
    "nanmedian": _median_dtype,
    "sort": _expected_dtype,
    "topk": _expected_dtype,
}
_OUT_TYPES: dict[str, type] = {}


def write_outs(name: str, result: Any, out: Any) -> Any:
    """out= of a function returning several tensors: a tuple (or list) of as many tensors, each
    of exactly its result's dtype (no casting), each resized and written; returns
    torch.return_types.<name>_out holding the given tensors."""
    from detachviz.engine.ops.reduce import return_type  # the ops import this module

    if not isinstance(out, (tuple, list)):
        raise TypeError(
            f"{name}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}"
        )
    if len(out) != len(result):
        raise TypeError(f"expected tuple of {len(result)} elements but got {len(out)}")
    for o in out:
        if not isinstance(o, Tensor):
            raise TypeError(
                f"{name}(): argument 'out' must be tuple of Tensors, not {type(o).__name__}"
            )
    if state.grad_enabled and any(r._requires_grad for r in result):
        raise _out_error(name)
    if state.grad_enabled and any(o._requires_grad for o in out):
        raise _out_error(name)
    words = MULTI_OUT[name]
    pairs = list(enumerate(zip(result, out)))
    if name == "linalg_eigh":
        pairs.reverse()  # torch checks the eigenvectors first
    for k, (r, o) in pairs:
        if r._dtype is not o._dtype:
            raise RuntimeError(words(k, r, o))
    for r, o in zip(result, out):
        _copy_into(r, o)
    cls = _OUT_TYPES.get(name)
    if cls is None:
        cls = _OUT_TYPES[name] = return_type(name + "_out", type(result)._fields)
    return cls(*out)


def write_out(name: str, result: Any, out: Any) -> Any:
    """torch's out= semantics: `result` written into `out` (resized, cast), `out` returned."""
    if not isinstance(result, Tensor):
        if name in MULTI_OUT and isinstance(result, tuple) and hasattr(result, "_fields"):
            return write_outs(name, result, out)
        raise NotImplementedError(f"detachviz: {name}(out=...) of several results")
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if state.grad_enabled and (result._requires_grad or out._requires_grad):
        raise _out_error(name)
    if _kind(result) > _kind(out):
        kind = result._dtype.legacy.removesuffix("Tensor")
        want = out._dtype.legacy.removesuffix("Tensor")
        raise RuntimeError(f"result type {kind} can't be cast to the desired output type {want}")
    _copy_into(result, out)
    return out


def _copy_into(result: Tensor, out: Tensor) -> None:
    """Resize `out` to the result's shape (warning as torch when it was not empty), then copy."""
    shape = result._data.shape
    if out._data.shape != shape:
        if out._data.size:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"[{', '.join(map(str, out._data.shape))}], which does not match the required "
                f"output shape [{', '.join(map(str, shape))}]. This behavior is deprecated, and "
                "in a future PyTorch release outputs will not be resized unless they have zero "
                "elements. You can explicitly reuse an out tensor t by resizing it, inplace, to "
                "zero elements with t.resize_(0).",
                UserWarning,
                stacklevel=4,
            )
        out.resize_(*shape)  # NOTE: bumps the version once, as torch's resize and copy do
    else:
        out._bump()
    np.copyto(out._data, result._data, casting="unsafe")


def bind(fn: Callable[..., Any], name: str, params: tuple[str, ...], out_ok: bool) -> Any:
    """`fn` taking torch's keywords for its positional parameters (and out= if `out_ok`)."""

    @functools.wraps(fn)
    def call(*args: Any, **kw: Any) -> Any:
        if not kw:
            return fn(*args)
        out = kw.pop("out", None) if out_ok else None
        n = len(args)
        if n < len(params) and params[n] in kw:
            extra = []
            for p in params[n:]:
                if p not in kw:
                    break
                extra.append(kw.pop(p))
            args = (*args, *extra)
        result = fn(*args, **kw)
        return result if out is None else write_out(name, result, out)

    call.__name__ = call.__qualname__ = name
    call.__wrapped__ = fn  # type: ignore[attr-defined]
    return call


def _already_torchs(fn: Callable[..., Any], params: tuple[str, ...], skip: int = 0) -> bool:
    """Whether `fn`'s own positional parameters carry torch's names (no wrapper needed)."""
    code = getattr(fn, "__code__", None)
    if code is not None and not hasattr(fn, "__wrapped__"):
        # a plain function: its code object names them (inspect.signature costs ~0.3 ms a
        # function, a tenth of importing the engine over these tables)
        own = list(code.co_varnames[: code.co_argcount])[skip:]
        return own[: len(params)] == list(params)
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    own = [
        p.name
        for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ][skip:]
    return own[: len(params)] == list(params)


# torch.linalg's rows: the name in the module -> (torch's name in messages, the row)
LINALG: dict[str, tuple[str, str]] = {
    "eigh": ("linalg_eigh", "A, UPLO; out"),
    "qr": ("linalg_qr", "A, mode; out"),
    "slogdet": ("linalg_slogdet", "A; out"),
    "svd": ("linalg_svd", "A, full_matrices; out"),
}


def bind_namespace(namespace: dict[str, Any]) -> None:
    """Give the torch namespace's functions torch's call forms (once, at import)."""
    for name, row in FUNCTIONS.items():
        fn = namespace.get(name)
        if fn is None or isinstance(fn, Deferred) or hasattr(fn, "__wrapped__"):
            continue  # bound already, or when its family is imported (engine/deferred.py)
        params, out_ok = _parse(row)
        if out_ok or not _already_torchs(fn, params):
            namespace[name] = bind(fn, name, params, out_ok)


def bind_linalg(namespace: dict[str, Any]) -> None:
    """The same for torch.linalg (its functions' messages say `linalg_<name>`)."""
    for name, (torch_name, row) in LINALG.items():
        fn = namespace.get(name)
        if fn is None or hasattr(fn, "__wrapped__"):
            continue
        params, out_ok = _parse(row)
        call = bind(fn, torch_name, params, out_ok)
        call.__name__ = call.__qualname__ = name
        namespace[name] = call


def bind_methods(cls: type) -> None:
    """Give the Tensor methods torch's call forms (method rows drop the leading `input`)."""
    rows = {n: r.partition(";")[0] for n, r in FUNCTIONS.items() if r.startswith("input")}
    rows.update({n: "self, " + r for n, r in METHODS.items()})
    for name, row in rows.items():
        fn = cls.__dict__.get(name)
        if fn is None or isinstance(fn, Deferred) or hasattr(fn, "__wrapped__") or not callable(fn):
            continue
        params, _ = _parse(row)
        if len(params) > 1 and not _already_torchs(fn, params[1:], 1):  # `self` is positional
            setattr(cls, name, bind(fn, name, params, False))


# mathops: torch's call forms of the elementwise math of ops/special.py and the appended
# blocks of unary, arith, compare
FUNCTIONS.update(
    {
        **{
            name: "input; out"
            for name in "erf erfc erfinv lgamma digamma i0 sinc square asinh arcsinh acosh "
            "arccosh atanh arctanh deg2rad rad2deg sgn signbit bitwise_not".split()
        },
        **{
            name: "input, other; out"
            for name in "atan2 arctan2 hypot logaddexp logaddexp2 xlogy copysign ldexp fmax "
            "fmin nextafter remainder fmod floor_divide logical_and logical_or logical_xor "
            "bitwise_and bitwise_or bitwise_xor greater greater_equal less less_equal "
            "not_equal gcd lcm".split()
        },
        "logit": "input, eps; out",
        "polygamma": "n, input; out",
        "mvlgamma": "input, p; out",
        "nan_to_num": "input, nan, posinf, neginf; out",
        "clamp_min": "input, min; out",
        "clamp_max": "input, max; out",
        "float_power": "input, exponent; out",
        "heaviside": "input, values; out",
        "frexp": "input; out",
        "positive": "input",
        "isposinf": "input; out",
        "isneginf": "input; out",
        "isreal": "input",
    }
)
