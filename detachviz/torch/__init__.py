"""The `torch` a script imports: detachviz's engine under PyTorch's names."""

from __future__ import annotations

import math as _math

from detachviz.engine import deferred as _deferred
from detachviz.engine import device as _device
from detachviz.engine import dtype as _dt
from detachviz.engine import factory as _f
from detachviz.engine import grad_mode as _gm
from detachviz.engine import namespace as _ns
from detachviz.engine import printing as _printing
from detachviz.engine import sampling as _rand
from detachviz.engine import signatures as _sig
from detachviz.engine import state as _state
from detachviz.engine.device import device as device
from detachviz.engine.ops import arith as _arith
from detachviz.engine.ops import compare as _cmp
from detachviz.engine.ops import join as _join
from detachviz.engine.ops import linalg as _linalg
from detachviz.engine.ops import reduce as _red
from detachviz.engine.ops import unary as _unary
from detachviz.engine.ops import view as _view
from detachviz.engine.promote import result_type as result_type
from detachviz.engine.size import Size
from detachviz.engine.tensor import Tensor

# op families imported on first use (engine/deferred.py)
_attention = _deferred.family("attention")
_decomp = _deferred.family("decomp")
_einsum = _deferred.family("einsum")
_layernorm = _deferred.family("layernorm")
_layout = _deferred.family("layout")
_loss = _deferred.family("loss")
_pw = _deferred.family("pointwise")
_rnn = _deferred.family("rnn")
_scan = _deferred.family("scan")
_scatter = _deferred.family("scatter")
_sort = _deferred.family("sort")
_stats = _deferred.family("stats")

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
default_generator = _state.default_generator  # one object for the process's life

# ops as functions
add = _arith.add
sub = _arith.sub
subtract = _arith.sub
mul = _arith.mul
multiply = _arith.mul
div = _arith.div
divide = _arith.div
true_divide = _arith.div
pow = _arith.pow  # noqa: A001
neg = _arith.neg
negative = _arith.neg
abs = _unary.abs  # noqa: A001
absolute = _unary.abs
exp = _unary.exp
log = _unary.log
sqrt = _unary.sqrt
sin = _unary.sin
cos = _unary.cos
tanh = _unary.tanh
sigmoid = _unary.sigmoid
relu = _unary.relu
clamp = _unary.clamp
clip = _unary.clamp
reciprocal = _arith.reciprocal
clone = _unary.clone
sum = _red.sum  # noqa: A001
mean = _red.mean
matmul = _linalg.matmul
mm = _linalg.mm
addmm = _linalg.addmm
dot = _linalg.matmul
mv = _linalg.matmul
t = _view.t
transpose = _view.transpose
permute = _view.permute
reshape = _view.reshape
flatten = _view.flatten
squeeze = _view.squeeze
unsqueeze = _view.unsqueeze
eq = _cmp.eq
ne = _cmp.ne
lt = _cmp.lt
le = _cmp.le
gt = _cmp.gt
ge = _cmp.ge
split = _view.split
chunk = _view.chunk
unbind = _view.unbind
narrow = _view.narrow
isnan = _cmp.isnan
isinf = _cmp.isinf
isfinite = _cmp.isfinite
logical_not = _cmp.logical_not
any = _cmp.any_  # noqa: A001
all = _cmp.all_  # noqa: A001
equal = _cmp.equal
allclose = _cmp.allclose
isclose = _cmp.isclose
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
bmm = _linalg.bmm
masked_fill = _join.masked_fill
binary_cross_entropy_with_logits = _loss.binary_cross_entropy_with_logits

# convolution, pooling, normalisation, padding, embedding (engine/ops/conv.py, pool.py, ...)
_conv = _deferred.family("conv")  # noqa: E402
_emb = _deferred.family("embedding")  # noqa: E402
_norm = _deferred.family("norm")  # noqa: E402
_pad = _deferred.family("pad")  # noqa: E402
_pool = _deferred.family("pool")  # noqa: E402

adaptive_avg_pool1d = _pool.adaptive_avg_pool1d
adaptive_max_pool1d = _pool.adaptive_max_pool1d
avg_pool1d = _pool.avg_pool1d
batch_norm = _norm.batch_norm
constant_pad_nd = _pad.constant_pad_nd
conv1d = _conv.conv1d
conv2d = _conv.conv2d
conv3d = _conv.conv3d
conv_transpose1d = _conv.conv_transpose1d
conv_transpose2d = _conv.conv_transpose2d
convolution = _conv.convolution
embedding = _emb.embedding
embedding_renorm_ = _emb.embedding_renorm_
group_norm = _norm.group_norm
max_pool1d = _pool.max_pool1d
max_pool2d = _pool.max_pool2d
max_pool2d_with_indices = _pool.max_pool2d_with_indices
# tensor ops of issue 16 (ops/layout, scan, scatter, sort, pointwise; unary extras)
acos = _unary.acos
addcdiv = _pw.addcdiv
addcmul = _pw.addcmul
arccos = _unary.acos
arcsin = _unary.asin
arctan = _unary.atan
argsort = _sort.argsort
asin = _unary.asin
atan = _unary.atan
ceil = _pw.ceil
cosh = _unary.cosh
det = _decomp.det
inverse = _decomp.inv
logdet = _decomp.logdet
pinverse = _decomp.pinv
slogdet = _decomp.slogdet
cumprod = _scan.cumprod
cumsum = _scan.cumsum
diag = _layout.diag
diag_embed = _layout.diag_embed
diagonal = _layout.diagonal
einsum = _einsum.einsum
exp2 = _unary.exp2
expm1 = _unary.expm1
fix = _pw.fix
flip = _layout.flip
floor = _pw.floor
frac = _pw.frac
gather = _scatter.gather
ger = _layout.outer
index_add = _scatter.index_add
index_select = _scatter.index_select
lerp = _pw.lerp
log10 = _unary.log10
log1p = _unary.log1p
log2 = _unary.log2
masked_scatter = _scatter.masked_scatter
masked_select = _scatter.masked_select
msort = _sort.msort
outer = _layout.outer
repeat_interleave = _layout.repeat_interleave
roll = _layout.roll
round = _pw.round  # noqa: A001
rsqrt = _unary.rsqrt
scatter = _scatter.scatter
scatter_add = _scatter.scatter_add
sign = _pw.sign
sinh = _unary.sinh
sort = _sort.sort
tan = _unary.tan
tile = _layout.tile
topk = _sort.topk
tril = _layout.tril
triu = _layout.triu
trunc = _pw.trunc

# shape ops (shapeops helper, round 6): ops/arrange.py, ops/counting.py
_arrange = _deferred.family("arrange")  # noqa: E402
_counting = _deferred.family("counting")  # noqa: E402
_totals = _deferred.family("totals")  # noqa: E402
prod = _totals.prod
cummax = _scan.cummax
index_fill = _scatter.index_fill
index_copy = _scatter.index_copy
cummin = _scan.cummin
nansum = _totals.nansum
nanmean = _totals.nanmean
median = _totals.median
nanmedian = _totals.nanmedian
movedim = _arrange.movedim
moveaxis = _arrange.movedim
swapaxes = _arrange.swapaxes
swapdims = _arrange.swapaxes
ravel = _arrange.ravel
unflatten = _arrange.unflatten
select = _arrange.select
tensor_split = _arrange.tensor_split
hsplit = _arrange.hsplit
vsplit = _arrange.vsplit
dsplit = _arrange.dsplit
split_with_sizes = _arrange.split_with_sizes
broadcast_to = _arrange.broadcast_to
fliplr = _arrange.fliplr
flipud = _arrange.flipud
diagflat = _arrange.diagflat
diff = _arrange.diff
inner = _arrange.inner
kron = _arrange.kron
matrix_power = _arrange.matrix_power
rot90 = _arrange.rot90
take = _arrange.take
take_along_dim = _arrange.take_along_dim
trace = _arrange.trace
broadcast_tensors = _arrange.broadcast_tensors
broadcast_shapes = _arrange.broadcast_shapes
meshgrid = _arrange.meshgrid
hstack = _arrange.hstack
vstack = _arrange.vstack
dstack = _arrange.dstack
column_stack = _arrange.column_stack
atleast_1d = _arrange.atleast_1d
atleast_2d = _arrange.atleast_2d
atleast_3d = _arrange.atleast_3d
tensordot = _arrange.tensordot
nonzero = _counting.nonzero
argwhere = _counting.argwhere
count_nonzero = _counting.count_nonzero
bincount = _counting.bincount
unique = _counting.unique
unique_consecutive = _counting.unique_consecutive
searchsorted = _counting.searchsorted
bucketize = _counting.bucketize
tril_indices = _counting.tril_indices
triu_indices = _counting.triu_indices

# mathops: elementwise math of torch 2.13 (ops/special.py; appended blocks of unary, arith,
# compare), with their aliases
_special = _deferred.family("special")  # noqa: E402
erf = _special.erf
erfc = _special.erfc
erfinv = _special.erfinv
lgamma = _special.lgamma
digamma = _special.digamma
polygamma = _special.polygamma
mvlgamma = _special.mvlgamma
i0 = _special.i0
sinc = _special.sinc
logit = _special.logit
square = _unary.square
asinh = _unary.asinh
arcsinh = _unary.asinh
acosh = _unary.acosh
arccosh = _unary.acosh
atanh = _unary.atanh
arctanh = _unary.atanh
deg2rad = _unary.deg2rad
rad2deg = _unary.rad2deg
sgn = _unary.sgn
positive = _unary.positive
nan_to_num = _unary.nan_to_num
clamp_min = _unary.clamp_min
clamp_max = _unary.clamp_max
atan2 = _arith.atan2
arctan2 = _arith.atan2
hypot = _arith.hypot
logaddexp = _arith.logaddexp
logaddexp2 = _arith.logaddexp2
xlogy = _arith.xlogy
copysign = _arith.copysign
float_power = _arith.float_power
ldexp = _arith.ldexp
fmax = _arith.fmax
fmin = _arith.fmin
nextafter = _arith.nextafter
remainder = _arith.remainder
fmod = _arith.fmod
floor_divide = _cmp.floor_divide
logical_and = _cmp.logical_and
logical_or = _cmp.logical_or
logical_xor = _cmp.logical_xor
bitwise_and = _cmp.bitwise_and
bitwise_or = _cmp.bitwise_or
bitwise_xor = _cmp.bitwise_xor
bitwise_not = _cmp.bitwise_not
greater = _cmp.gt
greater_equal = _cmp.ge
less = _cmp.lt
less_equal = _cmp.le
not_equal = _cmp.ne
signbit = _cmp.signbit
isposinf = _cmp.isposinf
isneginf = _cmp.isneginf
isreal = _cmp.isreal
heaviside = _cmp.heaviside
gcd = _cmp.gcd
lcm = _cmp.lcm
frexp = _pw.frexp


# the rest of the namespace
is_anomaly_enabled = _gm.is_anomaly_enabled
is_anomaly_check_nan_enabled = _gm.is_anomaly_check_nan_enabled
is_tensor = _ns.is_tensor
is_floating_point = _ns.is_floating_point
numel = _ns.numel
get_default_dtype = _ns.get_default_dtype
set_default_dtype = _ns.set_default_dtype
is_storage = _ns.is_storage
promote_types = _ns.promote_types
set_printoptions = _printing.set_printoptions
_C = _ns.C

# rnn helper: layer norm and the recurrent-layer pieces
baddbmm = _attention.baddbmm
layer_norm = _layernorm.layer_norm
native_layer_norm = _layernorm.native_layer_norm
unsafe_chunk = _rnn.unsafe_chunk
unsafe_split = _rnn.unsafe_split
# bound on first use: the submodules, and torch.save / torch.load (PyTorch's zip format),
# whose module imports zipfile, pickle and hashlib
_SUBMODULES = {
    "autograd": "detachviz.torch.autograd",
    "func": "detachviz.engine.func",
    "linalg": "detachviz.torch.linalg",
    "load": "detachviz.serialization:load",
    "nn": "detachviz.nn",
    "optim": "detachviz.optim",
    "random": "detachviz.torch.random",
    "save": "detachviz.serialization:save",
    "serialization": "detachviz.serialization",
    "special": "detachviz.torch.special",
    "utils": "detachviz.utils",
}
# constants
pi = _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan

# devices (autograd helper's block): a CPU-only build
cuda = _device.cuda
backends = _device.backends
accelerator = _device.accelerator
set_default_device = _device.set_default_device
get_default_device = _device.get_default_device

__getattr__ = _ns.module_getattr(globals(), "torch", _SUBMODULES, methods=True)
__dir__ = _ns.module_dir(globals(), _SUBMODULES)
_sig.bind_namespace(globals())  # torch's call forms: keywords for positionals, out=
_deferred.site(globals(), lambda: _sig.bind_namespace(globals()))

__all__ = ["Tensor", "Size", "tensor", "ones", "zeros", "no_grad"]
