"""The `torch` a script imports: detachviz's engine under PyTorch's names."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from detachviz.engine import bce_loss as _bce
from detachviz.engine import closeness as _close
from detachviz.engine import dtype as _dt
from detachviz.engine import factory as _f
from detachviz.engine import grad_mode as _gm
from detachviz.engine import joining as _join
from detachviz.engine import loss as _loss
from detachviz.engine import ops as _ops
from detachviz.engine import post_accumulate as _post_accumulate  # noqa: F401 - installs
from detachviz.engine import reductions as _red
from detachviz.engine import sampling as _rand
from detachviz.engine import statistics as _stats
from detachviz.engine.size import Size
from detachviz.engine.tensor import Tensor

__version__ = "2.13.0+detachviz"

# dtypes and their aliases
dtype = _dt.dtype
float32 = _dt.float32
float64 = _dt.float64
float16 = _dt.float16
int64 = _dt.int64
int32 = _dt.int32
int16 = _dt.int16
int8 = _dt.int8
uint8 = _dt.uint8
bool = _dt.bool_  # noqa: A001 - torch's name
float = _dt.float32  # noqa: A001
double = _dt.float64
half = _dt.float16
long = _dt.int64
int = _dt.int32  # noqa: A001
short = _dt.int16

# legacy constructors
FloatTensor = _f.legacy_type("FloatTensor", _dt.float32)
DoubleTensor = _f.legacy_type("DoubleTensor", _dt.float64)
HalfTensor = _f.legacy_type("HalfTensor", _dt.float16)
LongTensor = _f.legacy_type("LongTensor", _dt.int64)
IntTensor = _f.legacy_type("IntTensor", _dt.int32)
ByteTensor = _f.legacy_type("ByteTensor", _dt.uint8)
BoolTensor = _f.legacy_type("BoolTensor", _dt.bool_)

# grad mode
no_grad = _gm.no_grad
enable_grad = _gm.enable_grad
set_grad_enabled = _gm.set_grad_enabled
is_grad_enabled = _gm.is_grad_enabled
inference_mode = _gm.inference_mode
is_inference_mode_enabled = _gm.is_inference_mode_enabled

# factories
tensor = _f.tensor
as_tensor = _f.as_tensor
from_numpy = _f.from_numpy
ones = _f.ones
zeros = _f.zeros
empty = _f.empty
full = _f.full
rand = _rand.rand
randn = _rand.randn
randint = _rand.randint
randperm = _rand.randperm
normal = _rand.normal
arange = _f.arange
linspace = _f.linspace
logspace = _f.logspace
eye = _f.eye
zeros_like = _f.zeros_like
ones_like = _f.ones_like
empty_like = _f.empty_like
full_like = _f.full_like
rand_like = _rand.rand_like
randn_like = _rand.randn_like
manual_seed = _rand.manual_seed
initial_seed = _rand.initial_seed
seed = _rand.seed
randint_like = _rand.randint_like
bernoulli = _rand.bernoulli
multinomial = _rand.multinomial
get_rng_state = _rand.get_rng_state
set_rng_state = _rand.set_rng_state
Generator = _rand.Generator
default_generator = _rand.default_generator

# ops as functions
add = _ops.add
sub = _ops.sub
subtract = _ops.sub
mul = _ops.mul
multiply = _ops.mul
div = _ops.div
divide = _ops.div
true_divide = _ops.div
pow = _ops.pow  # noqa: A001
neg = _ops.neg
negative = _ops.neg
abs = _ops.abs  # noqa: A001
absolute = _ops.abs
exp = _ops.exp
log = _ops.log
sqrt = _ops.sqrt
sin = _ops.sin
cos = _ops.cos
tanh = _ops.tanh
sigmoid = _ops.sigmoid
relu = _ops.relu
clamp = _ops.clamp
clip = _ops.clamp
reciprocal = _ops.reciprocal
clone = _ops.clone
sum = _ops.sum  # noqa: A001
mean = _ops.mean
matmul = _ops.matmul
mm = _ops.mm
addmm = _ops.addmm
dot = _ops.matmul
mv = _ops.matmul
t = _ops.t
transpose = _ops.transpose
permute = _ops.permute
reshape = _ops.reshape
flatten = _ops.flatten
squeeze = _ops.squeeze
unsqueeze = _ops.unsqueeze
eq = _ops.eq
ne = _ops.ne
lt = _ops.lt
le = _ops.le
gt = _ops.gt
ge = _ops.ge
result_type = _ops.result_type
split = _ops.split
chunk = _ops.chunk
unbind = _ops.unbind
narrow = _ops.narrow
isnan = _ops.isnan
isinf = _ops.isinf
isfinite = _ops.isfinite
logical_not = _ops.logical_not
any = _ops.any_  # noqa: A001
all = _ops.all_  # noqa: A001
equal = _ops.equal
allclose = _ops.allclose
isclose = _close.isclose
std = _stats.std
var = _stats.var
norm = _stats.norm
max = _red.max  # noqa: A001
min = _red.min  # noqa: A001
maximum = _red.maximum
minimum = _red.minimum
amax = _red.amax
amin = _red.amin
argmax = _red.argmax
argmin = _red.argmin
softmax = _red.softmax
log_softmax = _red.log_softmax
logsumexp = _red.logsumexp
cat = _join.cat
concat = _join.cat
concatenate = _join.cat
stack = _join.stack
where = _join.where
bmm = _join.bmm
masked_fill = _join.masked_fill
binary_cross_entropy_with_logits = _bce.binary_cross_entropy_with_logits


def is_anomaly_enabled() -> bool:
    from detachviz.engine.errors import ANOMALY

    return ANOMALY["enabled"] is True


def is_anomaly_check_nan_enabled() -> bool:
    from detachviz.engine.errors import ANOMALY

    return ANOMALY["check_nan"] is True


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(t: Tensor) -> bool:
    return t._dtype.is_floating_point


def numel(t: Tensor) -> int:
    return t.numel()


def get_default_dtype() -> _dt.dtype:
    return _dt.DEFAULT


def set_default_dtype(d: _dt.dtype) -> None:
    if not isinstance(d, _dt.dtype) or not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dt.DEFAULT = d


def is_storage(obj: Any) -> bool:
    return False


def promote_types(a: _dt.dtype, b: _dt.dtype) -> _dt.dtype:
    return _ops._promote_pair(a, b)


def set_printoptions(*args: Any, **kwargs: Any) -> None:
    from detachviz.engine.printing import set_printoptions as _set

    _set(*args, **kwargs)


from detachviz.engine.tensor import device as device  # noqa: E402


class _Cuda:
    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def device_count() -> int:
        return 0

    @staticmethod
    def manual_seed(seed: Any) -> None:
        return None

    manual_seed_all = manual_seed


cuda = _Cuda()


class _NN:
    """torch._C._nn: the fused ops torch.nn.functional calls."""

    mse_loss = staticmethod(_loss.mse_loss)
    nll_loss_nd = staticmethod(_loss.nll_loss_nd)
    binary_cross_entropy = staticmethod(_bce.binary_cross_entropy)


class _CModule:
    """torch._C, as far as scripts and nn reach into it."""

    _nn = _NN()


_C = _CModule()
np_ = np  # internal alias (keeps `np` out of torch's public names below)

# lazily imported submodules (written elsewhere; a missing one must not break `import torch`)
_SUBMODULES = {
    "autograd": "detachviz.torch.autograd",
    "nn": "detachviz.nn",
    "optim": "detachviz.optim",
    "random": "detachviz.torch.random",
}


def __getattr__(name: str) -> Any:
    target = _SUBMODULES.get(name)
    if target is not None:
        mod = importlib.import_module(target)
        globals()[name] = mod
        return mod
    if name.startswith("__"):
        raise AttributeError(name)
    # torch exposes most tensor methods as functions too: torch.detach(x), torch.exp_(x)
    method = getattr(Tensor, name, None) if not name.startswith("_") else None
    if callable(method) and not isinstance(method, property):

        def function(input: Tensor, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
            return getattr(input, name)(*args, **kwargs)

        function.__name__ = name
        globals()[name] = function
        return function
    raise AttributeError(f"torch.{name} is not supported by detachviz")


__all__ = ["Tensor", "Size", "tensor", "ones", "zeros", "no_grad"]
