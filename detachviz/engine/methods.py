"""The one table of Tensor methods (and the few Node methods that need a higher layer).

`install()` puts every op of engine/ops/ on `Tensor`, and the behaviour tensor.py and node.py
cannot import without a cycle (the legacy constructor, `backward`, pickling, calling a node,
unpacking a saved tensor). engine/__init__.py calls it once, after every op module is loaded,
so `import detachviz.engine` (or any of its modules) yields the complete Tensor.

To add a Tensor method: write the function in its op family, add one row to `TENSOR_METHODS`
(operators to `OPERATORS`, properties to `PROPERTIES`); if torch also has it as a function,
re-export it in detachviz/torch/__init__.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from detachviz.engine import autograd, deferred, errors, factory, sampling, signatures, state
from detachviz.engine import dtype as dtypes
from detachviz.engine.device import NO_CUDA
from detachviz.engine.function import operator_form
from detachviz.engine.node import Node, RemovableHandle
from detachviz.engine.ops import (
    arith,
    compare,
    index,
    inplace,
    join,
    linalg,
    reduce,
    unary,
    view,
)
from detachviz.engine.tensor import Tensor, saved_value
from detachviz.engine.tensor_api import TORCH_TENSOR_LACKS
from detachviz.engine.unsupported import refuse_names

# op families imported on first use (engine/deferred.py)
arrange = deferred.family("arrange")
attention = deferred.family("attention")
counting = deferred.family("counting")
totals = deferred.family("totals")
decomp = deferred.family("decomp")
layout = deferred.family("layout")
pointwise = deferred.family("pointwise")
rnn = deferred.family("rnn")
scan = deferred.family("scan")
scatter = deferred.family("scatter")
sort = deferred.family("sort")
stats = deferred.family("stats")


def _backward(
    self: Tensor,
    gradient: Tensor | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    autograd.backward(
        (self,),
        None if gradient is None else (gradient,),
        retain_graph,
        create_graph,
        inputs=inputs,
    )


def _legacy_new(cls: type, *args: Any, **kwargs: Any) -> Tensor:
    # the legacy constructor: torch.Tensor([1, 2]) / torch.Tensor(2, 3) / torch.Tensor()
    return factory.legacy_new(cls, state.default_dtype, args, kwargs)


def _reduce_ex(self: Tensor, protocol: Any) -> Any:
    cls = type(self)
    extra = () if cls is Tensor else (cls,)
    return (factory.rebuild, (self._data, self._requires_grad, *extra))


def _post_accumulate_hook(self: Tensor, hook: Callable[[Tensor], None]) -> RemovableHandle:
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


def _node_call(self: Node, *grads: Any) -> Any:
    """Apply this backward function to output gradients (tensors), as torch allows."""
    return autograd.apply_node(self, grads)


def _cast(dt: dtypes.dtype) -> Callable[..., Tensor]:
    def cast(x: Tensor, memory_format: Any = None) -> Tensor:
        return unary.to_dtype(x, dt)

    return cast


def _eq(x: Tensor, y: Any) -> Any:
    # torch's one exception: `==` takes an ndarray itself, as a tensor sharing its memory
    # (pytorch#122249), so `t == a` and `a == t` compare elementwise, while `t != a` falls
    # back to Python's identity test
    return compare.eq(x, factory.from_numpy(y) if isinstance(y, np.ndarray) else y)


def _array_wrap(
    self: Tensor, array: np.ndarray, context: Any = None, return_scalar: bool = False
) -> Tensor:
    """numpy's result of a ufunc over this tensor (`np.exp(t)`, `t * ndarray`), as a new
    tensor without history; bool results come back as uint8, as torch's do."""
    if array.dtype == np.bool_:
        array = array.astype(np.uint8)
    return factory.from_numpy(np.asarray(array))


def _is_tensor(v: Any) -> bool:
    return isinstance(v, Tensor)


# Python operators (the fast paths first: a + b on tensors is the engine's hottest call; the
# fast paths answer NotImplemented themselves, like `operator_form`)
OPERATORS: dict[str, Any] = {
    "__add__": arith.add_fast,
    "__radd__": operator_form(arith.radd),
    "__iadd__": operator_form(lambda x, y: inplace.add_(x, y)),
    "__sub__": arith.sub_fast,
    "__rsub__": operator_form(arith.rsub),
    "__isub__": operator_form(lambda x, y: inplace.sub_(x, y)),
    "__mul__": arith.mul_fast,
    "__rmul__": operator_form(arith.rmul),
    "__imul__": operator_form(lambda x, y: inplace.mul_(x, y)),
    "__truediv__": arith.div_fast,
    "__rtruediv__": operator_form(arith.rdiv),
    "__itruediv__": operator_form(lambda x, y: inplace.div_(x, y)),
    "__pow__": operator_form(arith.pow),
    "__rpow__": operator_form(arith.rpow),
    "__ipow__": operator_form(inplace.pow_),
    "__matmul__": operator_form(linalg.matmul, takes=_is_tensor),
    "__rmatmul__": operator_form(linalg.rmatmul, takes=_is_tensor),
    "__neg__": arith.neg,
    "__pos__": lambda x: x,
    "__abs__": unary.abs,
    "__eq__": operator_form(_eq),
    "__ne__": operator_form(compare.ne),
    "__lt__": operator_form(compare.lt),
    "__le__": operator_form(compare.le),
    "__gt__": operator_form(compare.gt),
    "__ge__": operator_form(compare.ge),
    "__and__": operator_form(compare.bitwise_and),
    "__or__": operator_form(compare.bitwise_or),
    "__xor__": operator_form(compare.bitwise_xor),
    "__invert__": compare.invert,
    "__floordiv__": operator_form(compare.floordiv),
    "__mod__": operator_form(arith.remainder),  # mathops: differentiable, as torch's
    "__rmod__": operator_form(lambda x, y: arith.remainder(y, x)),
    "__imod__": operator_form(arith.remainder_),
    "__array_wrap__": _array_wrap,
    "__getitem__": index.getitem,
    "__setitem__": index.setitem,
    "__reduce_ex__": _reduce_ex,
}

TENSOR_METHODS: dict[str, Any] = {
    # arithmetic
    "add": arith.add,
    "sub": arith.sub,
    "subtract": arith.sub,
    "mul": arith.mul,
    "multiply": arith.mul,
    "div": arith.div,
    "divide": arith.div,
    "true_divide": arith.div,
    "pow": arith.pow,
    "neg": arith.neg,
    "negative": arith.neg,
    "reciprocal": arith.reciprocal,
    # elementwise math, copies, casts
    "abs": unary.abs,
    "absolute": unary.abs,
    "exp": unary.exp,
    "log": unary.log,
    "sqrt": unary.sqrt,
    "sin": unary.sin,
    "cos": unary.cos,
    "tanh": unary.tanh,
    "sigmoid": unary.sigmoid,
    "relu": unary.relu,
    "clamp": unary.clamp,
    "clip": unary.clamp,
    "clone": unary.clone,
    "contiguous": unary.contiguous,
    "to": unary.to,
    "type": unary.type_,
    "type_as": lambda x, other: unary.to_dtype(x, other._dtype),
    "float": _cast(dtypes.float32),
    "double": _cast(dtypes.float64),
    "half": _cast(dtypes.float16),
    "long": _cast(dtypes.int64),
    "int": _cast(dtypes.int32),
    "bool": _cast(dtypes.bool_),
    "cpu": lambda x, memory_format=None: x,
    # reductions
    "sum": reduce.sum,
    "mean": reduce.mean,
    "max": reduce.max,
    "min": reduce.min,
    "maximum": reduce.maximum,
    "minimum": reduce.minimum,
    "amax": reduce.amax,
    "amin": reduce.amin,
    "argmax": reduce.argmax,
    "argmin": reduce.argmin,
    "softmax": reduce.softmax,
    "log_softmax": reduce.log_softmax,
    "logsumexp": reduce.logsumexp,
    "std": stats.std,
    "var": stats.var,
    "norm": stats.norm,
    # linear algebra
    "matmul": linalg.matmul,
    "mm": linalg.mm,
    "dot": lambda x, y: linalg.matmul(x, y),
    "mv": lambda x, y: linalg.matmul(x, y),
    "bmm": linalg.bmm,
    "addmm": lambda inp, m1, m2, *, beta=1, alpha=1: linalg.addmm(
        inp, m1, m2, beta=beta, alpha=alpha
    ),
    # views
    "view": view.view,
    "view_as": lambda x, other: view.view(x, other._data.shape),
    "reshape": view.reshape,
    "reshape_as": lambda x, other: view.reshape(x, other._data.shape),
    "flatten": view.flatten,
    "t": view.t,
    "transpose": view.transpose,
    "permute": view.permute,
    "expand": view.expand,
    "expand_as": view.expand_as,
    "unsqueeze": view.unsqueeze,
    "squeeze": view.squeeze,
    "split": view.split,
    "chunk": view.chunk,
    "unbind": view.unbind,
    "narrow": view.narrow,
    # joining and masking
    "where": lambda x, condition, y: join.where(condition, x, y),
    "masked_fill": join.masked_fill,
    "masked_fill_": join.masked_fill_,
    # in-place
    "add_": inplace.add_,
    "sub_": inplace.sub_,
    "mul_": inplace.mul_,
    "div_": inplace.div_,
    "pow_": inplace.pow_,
    "zero_": inplace.zero_,
    "fill_": inplace.fill_,
    "clamp_": inplace.clamp_,
    "copy_": inplace.copy_,
    "exp_": inplace.exp_,
    "log_": inplace.log_,
    "sqrt_": inplace.sqrt_,
    "neg_": inplace.neg_,
    "tanh_": inplace.tanh_,
    "sigmoid_": inplace.sigmoid_,
    "relu_": inplace.relu_,
    "abs_": inplace.abs_,
    "resize_": inplace.resize_,
    # comparisons and predicates
    "eq": compare.eq,
    "ne": compare.ne,
    "lt": compare.lt,
    "le": compare.le,
    "gt": compare.gt,
    "ge": compare.ge,
    "isnan": compare.isnan,
    "isinf": compare.isinf,
    "isfinite": compare.isfinite,
    "logical_not": compare.logical_not,
    "any": compare.any_,
    "all": compare.all_,
    "equal": compare.equal,
    "allclose": compare.allclose,
    "isclose": compare.isclose,
    # random draws (in-place fills and sampling from a tensor)
    "uniform_": sampling.uniform_,
    "normal_": sampling.normal_,
    "exponential_": sampling.exponential_,
    "random_": sampling.random_,
    "bernoulli_": sampling.bernoulli_,
    "bernoulli": sampling.bernoulli,
    "multinomial": sampling.multinomial,
    # factories on a tensor
    "new_tensor": factory.new_tensor,
    "new_zeros": lambda x, *size, dtype=None, requires_grad=False: factory.new_full(
        x, size, 0, dtype, requires_grad
    ),
    "new_ones": lambda x, *size, dtype=None, requires_grad=False: factory.new_full(
        x, size, 1, dtype, requires_grad
    ),
    "new_full": lambda x, size, fill_value, dtype=None, requires_grad=False: factory.new_full(
        x, (size,), fill_value, dtype, requires_grad
    ),
    "new_empty": lambda x, *size, dtype=None, requires_grad=False: factory.new_full(
        x, size, 0, dtype, requires_grad
    ),
    # more in-place random fills (sampling.py)
    "cauchy_": sampling.cauchy_,
    "geometric_": sampling.geometric_,
    "log_normal_": sampling.log_normal_,
    # tensor ops of issue 16 (ops/layout, scan, scatter, sort, pointwise; unary extras)
    "acos": unary.acos,
    "acos_": inplace.acos_,
    "addcdiv": pointwise.addcdiv,
    "addcdiv_": pointwise.addcdiv_,
    "addcmul": pointwise.addcmul,
    "addcmul_": pointwise.addcmul_,
    "arccos": unary.acos,
    "arcsin": unary.asin,
    "arctan": unary.atan,
    "argsort": sort.argsort,
    "asin": unary.asin,
    "asin_": inplace.asin_,
    "atan": unary.atan,
    "atan_": inplace.atan_,
    "ceil": pointwise.ceil,
    "det": decomp.det,
    "inverse": decomp.inv,
    "logdet": decomp.logdet,
    "pinverse": decomp.pinv,
    "slogdet": decomp.slogdet,
    "ceil_": pointwise.ceil_,
    "cos_": inplace.cos_,
    "cosh": unary.cosh,
    "cosh_": inplace.cosh_,
    "cumprod": scan.cumprod,
    "cumprod_": scan.cumprod_,
    "cumsum": scan.cumsum,
    "cumsum_": scan.cumsum_,
    "diag": layout.diag,
    "diag_embed": layout.diag_embed,
    "diagonal": layout.diagonal,
    "exp2": unary.exp2,
    "exp2_": inplace.exp2_,
    "expm1": unary.expm1,
    "expm1_": inplace.expm1_,
    "fix": pointwise.fix,
    "fix_": pointwise.fix_,
    "flip": layout.flip,
    "floor": pointwise.floor,
    "floor_": pointwise.floor_,
    "frac": pointwise.frac,
    "frac_": pointwise.frac_,
    "gather": scatter.gather,
    "index_add": scatter.index_add,
    "index_add_": scatter.index_add_,
    "index_select": scatter.index_select,
    "lerp": pointwise.lerp,
    "lerp_": pointwise.lerp_,
    "log10": unary.log10,
    "log10_": inplace.log10_,
    "log1p": unary.log1p,
    "log1p_": inplace.log1p_,
    "log2": unary.log2,
    "log2_": inplace.log2_,
    "masked_scatter": scatter.masked_scatter,
    "masked_scatter_": scatter.masked_scatter_,
    "masked_select": scatter.masked_select,
    "msort": sort.msort,
    "outer": layout.outer,
    "reciprocal_": inplace.reciprocal_,
    "repeat": layout.repeat,
    "repeat_interleave": layout.repeat_interleave,
    "roll": layout.roll,
    "round": pointwise.round,
    "round_": pointwise.round_,
    "rsqrt": unary.rsqrt,
    "rsqrt_": inplace.rsqrt_,
    "scatter": scatter.scatter,
    "scatter_": scatter.scatter_,
    "scatter_add": scatter.scatter_add,
    "scatter_add_": scatter.scatter_add_,
    "sign": pointwise.sign,
    "sign_": pointwise.sign_,
    "sin_": inplace.sin_,
    "sinh": unary.sinh,
    "sinh_": inplace.sinh_,
    "sort": sort.sort,
    "tan": unary.tan,
    "tan_": inplace.tan_,
    "tile": layout.tile,
    "topk": sort.topk,
    "tril": layout.tril,
    "triu": layout.triu,
    "trunc": pointwise.trunc,
    "trunc_": pointwise.trunc_,
    "ger": layout.outer,
    "absolute_": inplace.abs_,
    "negative_": inplace.neg_,
    "clip_": inplace.clamp_,
    # shape ops (shapeops helper, round 6): ops/arrange.py, ops/counting.py
    "movedim": arrange.movedim,
    "moveaxis": arrange.movedim,
    "swapaxes": arrange.swapaxes,
    "swapdims": arrange.swapaxes,
    "ravel": arrange.ravel,
    "unflatten": arrange.unflatten,
    "select": arrange.select,
    "tensor_split": arrange.tensor_split,
    "hsplit": arrange.hsplit,
    "vsplit": arrange.vsplit,
    "dsplit": arrange.dsplit,
    "split_with_sizes": arrange.split_with_sizes,
    "broadcast_to": arrange.broadcast_to,
    "fliplr": arrange.fliplr,
    "flipud": arrange.flipud,
    "diagflat": arrange.diagflat,
    "diff": arrange.diff,
    "inner": arrange.inner,
    "kron": arrange.kron,
    "matrix_power": arrange.matrix_power,
    "rot90": arrange.rot90,
    "take": arrange.take,
    "take_along_dim": arrange.take_along_dim,
    "trace": arrange.trace,
    "sum_to_size": arrange.sum_to_size,
    "unfold": arrange.unfold,
    "nonzero": counting.nonzero,
    "argwhere": counting.argwhere,
    "count_nonzero": counting.count_nonzero,
    "bincount": counting.bincount,
    "unique": counting.unique,
    "unique_consecutive": counting.unique_consecutive,
    "prod": totals.prod,
    "cummax": scan.cummax,
    "index_fill": scatter.index_fill,
    "index_fill_": scatter.index_fill_,
    "index_copy": scatter.index_copy,
    "index_copy_": scatter.index_copy_,
    "cummin": scan.cummin,
    "nansum": totals.nansum,
    "nanmean": totals.nanmean,
    "median": totals.median,
    "nanmedian": totals.nanmedian,
    # autograd
    "backward": _backward,
    "register_post_accumulate_grad_hook": _post_accumulate_hook,
    # rnn helper: the gate split of recurrent cells, attention's baddbmm
    "baddbmm": attention.baddbmm,
    "unsafe_chunk": rnn.unsafe_chunk,
    "unsafe_split": rnn.unsafe_split,
    # devices (a CPU-only build)
    "cuda": lambda x, device=None, non_blocking=False, memory_format=None: _no_cuda(),
    "get_device": lambda x: -1,
    "is_pinned": lambda x, device=None: False,
}


# mathops: elementwise math of torch 2.13 (ops/special.py; appended blocks of unary, arith,
# compare): the functions, their aliases and in-place forms
special = deferred.family("special")
TENSOR_METHODS.update(
    {
        "erf": special.erf,
        "erf_": special.erf_,
        "erfc": special.erfc,
        "erfc_": special.erfc_,
        "erfinv": special.erfinv,
        "erfinv_": special.erfinv_,
        "lgamma": special.lgamma,
        "lgamma_": special.lgamma_,
        "digamma": special.digamma,
        "digamma_": special.digamma_,
        "polygamma": special._polygamma_method,
        "polygamma_": special.polygamma_,
        "mvlgamma": special.mvlgamma,
        "mvlgamma_": special.mvlgamma_,
        "i0": special.i0,
        "i0_": special.i0_,
        "sinc": special.sinc,
        "sinc_": special.sinc_,
        "logit": special.logit,
        "logit_": special.logit_,
        "square": unary.square,
        "square_": unary.square_,
        "asinh": unary.asinh,
        "asinh_": unary.asinh_,
        "arcsinh": unary.asinh,
        "arcsinh_": unary.asinh_,
        "acosh": unary.acosh,
        "acosh_": unary.acosh_,
        "arccosh": unary.acosh,
        "arccosh_": unary.acosh_,
        "atanh": unary.atanh,
        "atanh_": unary.atanh_,
        "arctanh": unary.atanh,
        "arctanh_": unary.atanh_,
        "deg2rad": unary.deg2rad,
        "deg2rad_": unary.deg2rad_,
        "rad2deg": unary.rad2deg,
        "rad2deg_": unary.rad2deg_,
        "sgn": unary.sgn,
        "sgn_": unary.sgn_,
        "positive": unary.positive,
        "nan_to_num": unary.nan_to_num,
        "nan_to_num_": unary.nan_to_num_,
        "clamp_min": unary.clamp_min,
        "clamp_min_": unary.clamp_min_,
        "clamp_max": unary.clamp_max,
        "clamp_max_": unary.clamp_max_,
        "atan2": arith.atan2,
        "atan2_": arith.atan2_,
        "arctan2": arith.atan2,
        "arctan2_": arith.atan2_,
        "hypot": arith.hypot,
        "hypot_": arith.hypot_,
        "logaddexp": arith.logaddexp,
        "logaddexp2": arith.logaddexp2,
        "xlogy": arith.xlogy,
        "xlogy_": arith.xlogy_,
        "copysign": arith.copysign,
        "copysign_": arith.copysign_,
        "float_power": arith.float_power,
        "float_power_": arith.float_power_,
        "ldexp": arith.ldexp,
        "ldexp_": arith.ldexp_,
        "fmax": arith.fmax,
        "fmin": arith.fmin,
        "nextafter": arith.nextafter,
        "nextafter_": arith.nextafter_,
        "remainder": arith.remainder,
        "remainder_": arith.remainder_,
        "fmod": arith.fmod,
        "fmod_": arith.fmod_,
        "floor_divide": compare.floor_divide,
        "logical_and": compare.logical_and,
        "logical_and_": compare.logical_and_,
        "logical_or": compare.logical_or,
        "logical_or_": compare.logical_or_,
        "logical_xor": compare.logical_xor,
        "logical_xor_": compare.logical_xor_,
        "bitwise_and": compare.bitwise_and,
        "bitwise_or": compare.bitwise_or,
        "bitwise_xor": compare.bitwise_xor,
        "bitwise_not": compare.bitwise_not,
        "greater": compare.gt,
        "greater_equal": compare.ge,
        "less": compare.lt,
        "less_equal": compare.le,
        "not_equal": compare.ne,
        "signbit": compare.signbit,
        "isposinf": compare.isposinf,
        "isneginf": compare.isneginf,
        "isreal": compare.isreal,
        "heaviside": compare.heaviside,
        "gcd": compare.gcd,
        "lcm": compare.lcm,
        "frexp": pointwise.frexp,
        "eq_": compare.eq_,
        "ne_": compare.ne_,
        "lt_": compare.lt_,
        "le_": compare.le_,
        "gt_": compare.gt_,
        "ge_": compare.ge_,
        "greater_": compare.greater_,
        "greater_equal_": compare.greater_equal_,
        "less_": compare.less_,
        "less_equal_": compare.less_equal_,
        "not_equal_": compare.not_equal_,
        "floor_divide_": compare.floor_divide_,
        "bitwise_and_": compare.bitwise_and_,
        "bitwise_or_": compare.bitwise_or_,
        "bitwise_xor_": compare.bitwise_xor_,
        "bitwise_not_": compare.bitwise_not_,
        "gcd_": compare.gcd_,
        "lcm_": compare.lcm_,
        "heaviside_": compare.heaviside_,
        "byte": _cast(dtypes.uint8),
        "char": _cast(dtypes.int8),
        "short": _cast(dtypes.int16),
    }
)


def _no_cuda() -> Any:
    raise AssertionError(NO_CUDA)


PROPERTIES: dict[str, Any] = {
    "is_cpu": lambda x: True,
    "T": view.tensor_T,
    "mT": view.tensor_mT,
}


def install() -> None:
    """Install every table row on Tensor (and Node's higher-layer methods). Idempotent."""
    for table in (OPERATORS, TENSOR_METHODS):
        for name, fn in table.items():
            setattr(Tensor, name, fn)
    for name, getter in PROPERTIES.items():
        setattr(Tensor, name, property(getter))
    signatures.bind_methods(Tensor)  # torch's keywords for the positional parameters
    deferred.site(Tensor, lambda: signatures.bind_methods(Tensor))
    refuse_names(Tensor, "Tensor", TORCH_TENSOR_LACKS)  # torch's names it has no row for
    setattr(Tensor, "__new__", staticmethod(_legacy_new))  # noqa: B010
    setattr(Node, "__call__", _node_call)  # noqa: B010 - installed late on purpose
    setattr(Node, "_value_of_saved", saved_value)  # noqa: B010
