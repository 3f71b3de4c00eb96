"""The Tensor: a numpy view over a shared storage, a shared version counter, autograd state.

Ops (arithmetic, reductions, views, in-place) are defined in `engine/ops/` and installed as
methods on this class by `engine/methods.py`; this module owns the tensor's identity: storage
and memory sharing (`detach()`, `.data`, views, and a view's history regenerated after an
in-place write), versions, `requires_grad` / `is_leaf` / `.grad`, hooks, conversion to Python
and numpy, and the repr.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any
from weakref import ref as _weakref

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine import errors, state, trace
from detachviz.engine.arrays import region, view_geometry
from detachviz.engine.device import CPU, device
from detachviz.engine.node import (
    MULTI,
    AccumulateGrad,
    Node,
    RemovableHandle,
    RetainGradHook,
    TensorHook,
    new_node,
    node_class,
)
from detachviz.engine.printing import format_tensor
from detachviz.engine.size import Size
from detachviz.engine.tensor_api import TORCH_TENSOR_LACKS
from detachviz.graph import vocab

_ndarray = np.ndarray
BY_NP = dtypes.BY_NP


class VersionCounter:
    """The in-place write counter; one object shared by a tensor, its views and detach()es."""

    __slots__ = ("v", "_trace")

    def __init__(self, v: int = 0) -> None:
        self.v = v  # _trace, while recording: the writes into it (engine/trace.py), unset before


class Meta:
    """Rarely used per-tensor autograd state, kept off the hot path (None until needed)."""

    __slots__ = (
        "accumulator",
        "retains_grad",
        "hooks",
        "no_grad_view",
        "view_of_leaf",
        "inference",
        "own_rg",
        "views",
    )

    def __init__(self) -> None:
        self.inference = False
        # views only: the view's own requires_grad flag (torch's requires_grad_ on the view);
        # its effective requires_grad is this or its base's (see `sync_views`)
        self.own_rg = False
        # bases only: weakrefs to views made without history, whose requires_grad follows
        # this tensor's
        self.views: list[Any] | None = None
        self.accumulator: AccumulateGrad | None = None
        self.retains_grad = False
        self.hooks: list[Any] | None = None  # hooks of a leaf, run by its AccumulateGrad
        self.no_grad_view = False  # a view created in no_grad mode (torch's CreationMeta)
        self.view_of_leaf = False


class _Storage:
    """What `untyped_storage()` / `storage()` return: enough to compare `data_ptr()`s."""

    __slots__ = ("_array",)

    def __init__(self, array: np.ndarray) -> None:
        self._array = array

    def data_ptr(self) -> int:
        return int(self._array.__array_interface__["data"][0])

    def nbytes(self) -> int:
        return int(self._array.nbytes)

    def size(self) -> int:
        return int(self._array.size)

    def __len__(self) -> int:
        return int(self._array.size)


class Tensor:
    """A torch-compatible tensor. `_data` is the numpy view of its values, `_storage` the
    array that owns the memory (shared by views, `detach()` and `.data`)."""

    __module__ = "torch"  # as torch spells it: <class 'torch.Tensor'>

    __slots__ = (
        "_data",
        "_storage",
        "_vc",
        "_dtype",
        "_requires_grad",
        "_grad_fn",
        "_output_nr",
        "_base",
        "_grad",
        "_x",
        "_fw_tangent",
        "_view_ver",  # views only: the version their grad_fn was made at (see _regen_view)
        "_trace",  # its latest trace snapshot while recording (engine/trace.py); None or unset
        "__weakref__",
    )
    # the slots' types (annotations only: the values live in the slots)
    _data: np.ndarray
    _storage: np.ndarray
    _vc: VersionCounter | None
    _dtype: dtypes.dtype
    _requires_grad: bool
    _grad_fn: Node | None
    _output_nr: int
    _base: Tensor | None
    _grad: Tensor | None
    _x: Meta | None
    _fw_tangent: Tensor | None
    _view_ver: int | None
    _trace: Any
    __array_priority__ = 1000

    # NOTE: the legacy constructor (torch.Tensor([1, 2]) / torch.Tensor(2, 3)), `backward`
    # and pickling are factory and autograd behaviour: engine/methods.py installs them, with
    # every op method.

    @classmethod
    def _make_subclass(cls, subclass: type, data: Tensor, require_grad: bool = False) -> Any:
        """A `subclass` instance sharing `data`'s storage, a fresh leaf (nn.Parameter uses it)."""
        t: Any = object.__new__(subclass)
        init_tensor(t, data._data, data._dtype)
        t._storage = data._storage
        t._vc = data._share_vc()
        if require_grad:
            t.requires_grad = True
        return t

    # -- storage and versions -------------------------------------------------------------
    def _share_vc(self) -> VersionCounter:
        vc = self._vc
        if vc is None:
            vc = self._vc = VersionCounter()
        return vc

    def _bump(self) -> None:
        vc = self._vc
        if vc is None:
            self._vc = VersionCounter(1)
        else:
            vc.v += 1

    @property
    def _version(self) -> int:
        if self._x is not None and self._x.inference:
            raise RuntimeError(errors.INFERENCE_VERSION)
        vc = self._vc
        return 0 if vc is None else vc.v

    def _is_view(self) -> bool:
        return self._base is not None

    def untyped_storage(self) -> _Storage:
        return _Storage(self._storage)

    def storage(self) -> _Storage:
        if not state.warned_typed_storage:
            state.warned_typed_storage = True
            warnings.warn(errors.TYPED_STORAGE_WARNING, UserWarning, stacklevel=2)
        return _Storage(self._storage)

    def data_ptr(self) -> int:
        return int(self._data.__array_interface__["data"][0])

    def storage_offset(self) -> int:
        return (self.data_ptr() - _Storage(self._storage).data_ptr()) // self._data.itemsize

    def stride(self, dim: int | None = None) -> Any:
        st = tuple(s // self._data.itemsize for s in self._data.strides)
        return st if dim is None else st[dim]

    def is_contiguous(self, memory_format: Any = None) -> bool:
        return bool(self._data.flags.c_contiguous)

    # -- metadata ---------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return tuple.__new__(Size, self._data.shape)

    def size(self, dim: int | None = None) -> Any:
        if dim is None:
            return tuple.__new__(Size, self._data.shape)
        return self._data.shape[dim]

    @property
    def dtype(self) -> dtypes.dtype:
        return self._dtype

    @property
    def device(self) -> device:
        return CPU

    is_cuda = False
    is_sparse = False
    is_quantized = False
    is_meta = False

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    def element_size(self) -> int:
        return int(self._data.itemsize)

    def is_inference(self) -> bool:
        return self._x is not None and self._x.inference

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def is_complex(self) -> bool:
        return False

    # -- autograd state ---------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self._set_requires_grad(value, errors.INT_REQUIRES_GRAD_SETATTR)

    def _set_requires_grad(self, value: bool, int_message: str) -> None:
        if self._grad_fn is not None:
            msg = errors.NON_LEAF_REQUIRES_GRAD
            if not value:
                msg += errors.NON_LEAF_REQUIRES_GRAD_HINT
            raise RuntimeError(msg)
        if value and not self._dtype.is_floating_point:
            raise RuntimeError(int_message)
        value = bool(value)
        base = self._base
        if base is not None:
            # NOTE: torch: a view requires grad if it does itself or its base does
            self._meta().own_rg = value
            value = value or base._requires_grad
        self._requires_grad = value
        sync_views(self)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if self._grad_fn is not None and requires_grad:
            return self
        if requires_grad and self._x is not None and self._x.inference and not state.inference:
            raise RuntimeError(errors.INFERENCE_REQUIRES_GRAD)
        self._set_requires_grad(requires_grad, errors.INT_REQUIRES_GRAD_SETTER)
        return self

    @property
    def is_leaf(self) -> bool:
        if self._base is not None:
            fresh_view(self)
        return self._grad_fn is None

    @property
    def grad_fn(self) -> Node | None:
        if self._base is not None:
            fresh_view(self)
        return self._grad_fn

    @property
    def output_nr(self) -> int:
        return self._output_nr

    @property
    def grad(self) -> Tensor | None:
        g = self._grad
        if g is None and self._grad_fn is not None and not self.retains_grad:
            warnings.warn(errors.NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return g

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(
                f"assigned grad expected to be a Tensor or None but got grad of "
                f"{type(value).__name__}"
            )
        if value is not None:
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{_sizes(value)}' to a tensor of "
                    f"size '{_sizes(self)}'. Please ensure that the gradient and the tensor are "
                    "the same size"
                )
            if value._dtype is not self._dtype:
                raise RuntimeError(
                    "attempting to assign a gradient with dtype "
                    f"'{dtypes.C_NAMES[value._dtype.name]}' to a tensor with grad_dtype "
                    f"'{dtypes.SCALAR_NAMES[self._dtype.name]}'. The "
                    "gradient must match the tensor's grad_dtype (defaults to the tensor's "
                    "dtype). You can set the tensor's grad_dtype attribute with a specific "
                    "dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging "
                    "the dtypes of a tensor and its gradient may break downstream systems that "
                    "assume they match."
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        return self._x is not None and self._x.retains_grad

    @property
    def _base_tensor(self) -> Tensor | None:
        return self._base

    def _meta(self) -> Meta:
        x = self._x
        if x is None:
            x = self._x = Meta()
        return x

    def _accumulator(self) -> AccumulateGrad:
        """This leaf's AccumulateGrad node (one per leaf, cached, as torch does)."""
        x = self._x
        if x is None:
            x = self._x = Meta()
        acc = x.accumulator
        if acc is None:
            acc = x.accumulator = AccumulateGrad(self)
            if x.hooks:
                acc._pre_hooks = x.hooks
        return acc

    def retain_grad(self) -> None:
        if not self._requires_grad:
            raise RuntimeError(errors.RETAIN_GRAD_NO_RG)
        if self._grad_fn is None:
            return  # NOTE: a no-op on leaves, as in torch
        m = self._meta()
        if m.retains_grad:
            return
        m.retains_grad = True
        fn = self._grad_fn
        if fn._pre_hooks is None:
            fn._pre_hooks = []
        fn._pre_hooks.append(RetainGradHook(self))

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        if not self._requires_grad:
            raise RuntimeError(errors.HOOK_NO_RG)
        fn = self._grad_fn
        if fn is None:
            m = self._meta()
            if m.hooks is None:
                m.hooks = []
                if m.accumulator is not None:
                    m.accumulator._pre_hooks = m.hooks
            h = TensorHook(hook, 0)
            m.hooks.append(h)
            return RemovableHandle(m.hooks, h)
        if fn._pre_hooks is None:
            fn._pre_hooks = []
        h = TensorHook(hook, self._output_nr)
        # NOTE: retain_grad's hook always runs after user hooks (torch >= 2.0)
        n = len(fn._pre_hooks)
        while n and type(fn._pre_hooks[n - 1]) is RetainGradHook:
            n -= 1
        fn._pre_hooks.insert(n, h)
        return RemovableHandle(fn._pre_hooks, h)

    # -- cuts: detach, detach_, .data -------------------------------------------------------
    def detach(self) -> Tensor:
        """A tensor sharing storage and version counter, with no history and no tangent."""
        out = object.__new__(Tensor)
        init_tensor(out, self._data, self._dtype)
        out._storage = self._storage
        out._vc = self._share_vc()
        if self._x is not None and self._x.inference:
            out._meta().inference = True  # NOTE: an inference tensor detaches to one
        if trace.RECORDER is not None:
            trace.RECORDER.record(vocab.DETACH, (self,), (out,), cut=vocab.DETACH)
        return out

    def detach_(self) -> Tensor:
        """Make this tensor a leaf in place. Views refuse (torch's error)."""
        if self._base is not None:
            raise RuntimeError(errors.DETACH_VIEW)
        rec = trace.RECORDER
        ref = rec.snapshot(self) if rec is not None else None
        fn = self._grad_fn
        if fn is not None:
            state.detached_inplace = True
        if fn is not None and fn._pre_hooks:
            # NOTE: detach_ keeps the tensor's hooks (torch): they now run for the leaf
            mine = [
                h for h in fn._pre_hooks if type(h) is TensorHook and h.output_nr == self._output_nr
            ]
            if mine:
                m = self._meta()
                m.hooks = (m.hooks or []) + mine
                if m.accumulator is not None:
                    m.accumulator._pre_hooks = m.hooks
        self._grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        self._fw_tangent = None
        sync_views(self)
        if rec is not None:
            rec.record(vocab.DETACH_, (ref,), (self,), cut=vocab.DETACH_, inplace=True)
        return self

    @property
    def data(self) -> Tensor:
        """Same storage, fresh version counter, no history (torch's variable_data())."""
        out = object.__new__(Tensor)
        init_tensor(out, self._data, self._dtype)
        out._storage = self._storage
        if trace.RECORDER is not None:
            trace.RECORDER.record(vocab.DATA, (self,), (out,), cut=vocab.DATA)
        return out

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {_type_name(value)}")
        self._data = value._data
        self._storage = value._storage
        self._dtype = value._dtype
        if self._x is not None and self._x.accumulator is not None:
            self._x.accumulator._shape = value._data.shape
            self._x.accumulator._npd = value._data.dtype

    # -- conversion -------------------------------------------------------------------------
    def numpy(self, *, force: bool = False) -> np.ndarray:
        if self._requires_grad and not force:
            raise RuntimeError(errors.NUMPY_REQUIRES_GRAD)
        return self._data

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if self._requires_grad:
            raise RuntimeError(errors.NUMPY_REQUIRES_GRAD)
        return self._data if dtype is None else self._data.astype(dtype, copy=False)

    def tolist(self) -> Any:
        return self._data.tolist()

    def item(self) -> Any:
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.item()

    def __dir__(self) -> list[str]:
        # torch's names detachviz lacks are class attributes that refuse (methods.install):
        # completion in a notebook offers what works
        return sorted(set(super().__dir__()) - TORCH_TENSOR_LACKS)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))  # as torch: the rows are UnbindBackward0's outputs

    def __bool__(self) -> bool:
        n = self._data.size
        if n == 1:
            return bool(self._data.item())
        if n == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")

    def _scalar(self) -> Any:
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.item()

    def __float__(self) -> float:
        return float(self._scalar())

    def __int__(self) -> int:
        return int(self._scalar())

    def __index__(self) -> int:
        if self._dtype.is_floating_point or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.item())

    def __complex__(self) -> complex:
        return complex(self._scalar())

    def __hash__(self) -> int:
        return id(self)  # NOTE: identity, as torch (hash(t) == id(t))

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return self._data.item().__format__(spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        fn = self._grad_fn
        name = None if fn is None else type(fn).__name__
        if self._base is not None and self._requires_grad:
            try:
                fresh_view(self)
                fn = self._grad_fn
                name = None if fn is None else type(fn).__name__
            except RuntimeError:
                name = "Invalid"  # NOTE: torch's repr of a view whose history is an error
        fw = self._fw_tangent
        tangent = None if fw is None else np.asarray(getattr(fw, "_data", fw))
        return format_tensor(
            self._data,
            self._dtype,
            requires_grad=self._requires_grad,
            grad_fn_name=name,
            tangent=tangent,
        )

    __str__ = __repr__

    def __deepcopy__(self, memo: dict[int, Any]) -> Tensor:
        if self._grad_fn is not None:
            raise RuntimeError(errors.DEEPCOPY_NON_LEAF)
        out = object.__new__(type(self))
        init_tensor(out, self._data.copy(), self._dtype)
        out._requires_grad = self._requires_grad
        if self._grad is not None:
            out._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = out
        return out

    if TYPE_CHECKING:
        # The operators engine/methods.py installs, declared for the type checker only, and
        # its named methods through this __getattr__'s Any. (At run time Tensor has no
        # __getattr__: the hook would cost every attribute read; engine/tensor_api.py.)
        def __getattr__(self, name: str) -> Any: ...
        def __add__(self, other: Any) -> Tensor: ...
        def __radd__(self, other: Any) -> Tensor: ...
        def __sub__(self, other: Any) -> Tensor: ...
        def __rsub__(self, other: Any) -> Tensor: ...
        def __mul__(self, other: Any) -> Tensor: ...
        def __rmul__(self, other: Any) -> Tensor: ...
        def __truediv__(self, other: Any) -> Tensor: ...
        def __rtruediv__(self, other: Any) -> Tensor: ...
        def __pow__(self, other: Any) -> Tensor: ...
        def __rpow__(self, other: Any) -> Tensor: ...
        def __matmul__(self, other: Any) -> Tensor: ...
        def __rmatmul__(self, other: Any) -> Tensor: ...
        def __neg__(self) -> Tensor: ...
        def __getitem__(self, index: Any) -> Tensor: ...
        def __setitem__(self, index: Any, value: Any) -> None: ...


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(str(d) for d in t._data.shape) + "]"


def _type_name(value: Any) -> str:
    t = type(value)
    mod = t.__module__
    return t.__name__ if mod == "builtins" else f"{mod.split('.')[0]}.{t.__name__}"


def init_tensor(t: Tensor, data: np.ndarray, dtype: dtypes.dtype) -> None:
    """Fill every slot of a fresh tensor: a leaf with no history that owns `data`."""
    t._data = data
    t._storage = data
    t._vc = None
    t._dtype = dtype
    t._requires_grad = False
    t._grad_fn = None
    t._output_nr = 0
    t._base = None
    t._grad = None
    t._x = None
    t._fw_tangent = None
    t._trace = None  # no recorder has seen it (engine/trace.py); a .grad is made so
    if state.inference:
        m = t._x = Meta()
        m.inference = True


def wrap(data: Any, dtype: dtypes.dtype | None = None) -> Tensor:
    """A new leaf owning `data` (an ndarray or numpy scalar)."""
    if type(data) is not _ndarray:
        data = np.asarray(data)
    t = object.__new__(Tensor)
    init_tensor(t, data, BY_NP[data.dtype] if dtype is None else dtype)
    return t


def scalar_tensor(value: Any) -> Tensor:
    """A python number a node saved, shown as the 0-dim tensor torch wraps it in."""
    if isinstance(value, bool):
        return wrap(np.array(value))
    if isinstance(value, int):
        return wrap(np.array(value, dtype=np.int64))
    return wrap(np.array(value, dtype=np.float64), dtypes.float64)


def shadow_output(saved: Tensor, node: Node) -> Tensor:
    """torch's unpack of a saved output: a tensor aliasing it whose grad_fn is the node."""
    t = object.__new__(Tensor)
    init_tensor(t, saved._data, saved._dtype)
    t._storage = saved._storage
    t._vc = saved._vc
    t._requires_grad = True
    t._grad_fn = node
    return t


trace.shadow_output = shadow_output
trace.scalar_tensor = scalar_tensor
trace.use_compiled(Tensor)


def fresh_view(t: Tensor) -> None:
    """torch regenerates a view's grad_fn once its base (or another view of it) was written
    in place: the view's history becomes AsStridedBackward0 over the base's new history."""
    if not t._requires_grad:
        return
    ver = t._view_ver
    if ver is None:
        return
    vc = t._vc
    cur = 0 if vc is None else vc.v
    if cur != ver:
        base = t._base
        assert base is not None
        if t._grad_fn is None and not base._requires_grad:
            return  # torch: nothing to regenerate (and nothing to refuse) yet
        # NOTE: views torch cannot rebase (its CreationMeta: made under no_grad, or one of
        # several outputs) raise instead, on every read of their history from then on
        x = t._x
        if x is not None and x.no_grad_view:
            raise RuntimeError(errors.no_grad_view_message(t, errors.NO_GRAD_VIEW_REBASED))
        fn = t._grad_fn
        if fn is not None and fn._shape is MULTI:
            name = errors.short_node_name(fn._name)
            raise RuntimeError(errors.MULTI_VIEW_REBASED.format(t._output_nr, name))
        regen_view(t)


def edge(t: Tensor) -> tuple[Node | None, int]:
    """The (node, output_nr) a gradient for `t` flows into."""
    if t._base is not None:
        fresh_view(t)
        fn = t._grad_fn
        if fn is not None:
            return (fn, t._output_nr)
        # NOTE: a view with no history that requires grad only through its base (made under
        # no_grad, or before base.requires_grad_()) has no AccumulateGrad in torch: its
        # gradient goes nowhere
        x = t._x
        if t._requires_grad and x is not None and x.own_rg:
            return (t._accumulator(), 0)
        return NO_EDGE
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if t._requires_grad:
        return (t._accumulator(), 0)
    return NO_EDGE


def track_view(base: Tensor, view: Tensor) -> None:
    """Remember a view made without history: its requires_grad follows `base`'s."""
    m = base._x
    if m is None:
        m = base._x = Meta()
    views = m.views
    if views is None:
        m.views = [_weakref(view)]
        return
    if len(views) >= 64 and len(views) & (len(views) - 1) == 0:
        views[:] = [r for r in views if r() is not None]  # drop dead refs now and then
    views.append(_weakref(view))


def sync_views(base: Tensor) -> None:
    """After `base`'s requires_grad changed: views without history follow it (torch's view
    requires_grad() is its own flag or its base's)."""
    m = base._x
    if m is None or not m.views:
        return
    rg = base._requires_grad
    for r in m.views:
        v = r()
        if v is not None and v._grad_fn is None:
            x = v._x
            v._requires_grad = rg or (x is not None and x.own_rg)


NO_EDGE = (None, 0)


# the history torch gives a view read after an in-place write of its base (or another view of
# it): a strided window of the base's new history
AS_STRIDED = node_class(
    "AsStridedBackward0",
    (
        lambda k, g, s, a: k.as_strided_backward(
            g, a.self_sym_sizes, a.size, a.stride, a.storage_offset
        ),
    ),
    attrs=("size", "stride", "storage_offset", "self_sym_sizes"),
    # the same window of the (contiguous) input's tangent
    jvp=(
        lambda t, p, o, a: np.array(
            region(np.ascontiguousarray(t), a.size, a.stride, a.storage_offset)
        ),
    ),
)


def regen_view(t: Tensor) -> None:
    """Give view `t` a fresh AsStridedBackward0 over its base's current history."""
    base = t._base
    assert base is not None and t._vc is not None
    t._view_ver = t._vc.v
    if not base._requires_grad and t._grad_fn is None:
        return
    # NOTE: a view with a history gets one even if its base no longer requires grad (base
    # detach_()'ed): torch's AsStridedBackward0 then has no next edge
    size, stride, offset, base_shape = view_geometry(t)
    node = new_node(AS_STRIDED, (edge(base),), (size, stride, offset, base_shape))
    node._shape = t._data.shape
    node._npd = t._data.dtype
    t._grad_fn = node
    t._output_nr = 0


def saved_value(node: Node, k: int) -> Any:
    """`node`'s k-th saved value as a tensor object: the input itself, a python number as the
    0-dim tensor torch wraps it in, or for the result a tensor aliasing it with `node` as
    grad_fn (torch's unpack of a saved output). Installed as `Node._value_of_saved`."""
    t = node._saved[k]
    if t is None:
        return None
    if type(t) in (int, float, bool):
        return scalar_tensor(t)
    if node._save_src[k] < 0:
        return shadow_output(t, node)
    return t
