"""Backward nodes (`grad_fn` objects): one class per torch backward name, saved tensors, hooks.

A node class is made by `node_class()` from a row of data: torch's exact name, the rule (one
vjp per input), what it saves. Instances hold only `next_functions`, the saved tensors with
their versions, non-tensor attributes and output metadata, all in `__slots__`.

Reading what a node saved (for diagnosis): `node._saved_variables` is a tuple of
`SavedVariable(tensor, name, saved_version, node)`; torch-style attributes `_saved_self`,
`_saved_other`, `_saved_result`, `_saved_exponent`, ... are generated per class from the
same row, so torchviz's `show_attrs` finds them with `dir()`.
"""

from __future__ import annotations

import itertools
import operator
import weakref
from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple, TypeVar

from detachviz.engine import errors, state

_SCALARS = (int, float, bool)
# the `_shape` of a node with several outputs (split, unbind); its `_npd` then holds one
# (shape, numpy dtype) pair per output
MULTI = ("multi-output",)
# the sequence number of the next function node (the ready queue runs newest first)
next_seq = itertools.count().__next__
# NOTE: torch gives AccumulateGrad the highest priority in the ready queue; we order the queue
# by -sequence number, so accumulators get numbers above every function node's.
_acc_seq = itertools.count(1 << 62)


# saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks, `_raw_saved_*.register_hooks`):
# node -> {saved slot: (packed value, unpack hook)}. Empty unless a script packs: backward
# then pays one truthiness test.
PACKED: weakref.WeakKeyDictionary[Any, dict[int, tuple[Any, Any]]] = weakref.WeakKeyDictionary()
# the slot order torch's generated code saves (and so packs) in, where it is not the row's
PACK_ORDER: dict[str, tuple[int, ...]] = {"MmBackward0": (1, 0), "PowBackward1": (1, 0, 2)}
UNPACK_NOT_TENSOR = (
    "Output of saved tensor unpack_hook expected to be a Tensor but got result of type {}"
)
HOOKS_ALREADY_SET = (
    "Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only "
    "one pair of hooks is allowed at a time."
)


def unpacked(node: Any, k: int) -> Any:
    """The value node's packed slot k unpacks to (its unpack hook's tensor)."""
    packed, unpack = PACKED[node][k]
    out = unpack(packed)
    if not hasattr(out, "_data") or not hasattr(out, "_grad_fn"):
        raise TypeError(UNPACK_NOT_TENSOR.format(type(out).__name__))
    orig = node._value_of_saved(k)
    if out is orig:
        return out
    # NOTE: as torch's SavedVariable::unpack, the values are the hook's and the autograd
    # identity (history, requires_grad) the saved tensor's
    res = out.detach()
    res._requires_grad = orig._requires_grad
    res._grad_fn = orig._grad_fn
    res._output_nr = orig._output_nr
    if orig._requires_grad and orig._grad_fn is None:
        # a saved leaf: gradients through the unpacked value reach the leaf's own .grad
        res._meta().accumulator = orig._accumulator()
    return res


class SavedTensor:
    """`grad_fn._raw_saved_<name>`: one saved tensor, where pack/unpack hooks can be set."""

    __slots__ = ("_node", "_k")

    def __init__(self, node: Any, k: int) -> None:
        self._node = node
        self._k = k

    def register_hooks(
        self, pack_hook: Callable[..., Any], unpack_hook: Callable[..., Any]
    ) -> None:
        node, k = self._node, self._k
        if node._saved is None:
            raise RuntimeError(errors.BACKWARD_TWICE)
        slots = PACKED.setdefault(node, {})
        if k in slots:
            raise RuntimeError(HOOKS_ALREADY_SET)
        slots[k] = (pack_hook(node._value_of_saved(k)), unpack_hook)
        state.packed = True

    def __repr__(self) -> str:
        return f"<torch._C._autograd.SavedTensor object at {hex(id(self))}>"


SavedTensor.__module__ = "torch._C._autograd"


class RemovableHandle:
    """What register_hook returns: `.remove()` takes the hook out again."""

    __slots__ = ("_hooks", "_hook", "id")

    def __init__(self, hooks: list[Any], hook: Any) -> None:
        self._hooks = hooks
        self._hook = hook

    def remove(self) -> None:
        for i, h in enumerate(self._hooks):
            if h is self._hook:
                del self._hooks[i]
                break

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


class SavedVariable:
    """One tensor a node saved for backward: the tensor object, torch's name for it
    ('self', 'other', 'result', 'exponent', 'mat2', ...) and its version when saved."""

    __slots__ = ("tensor", "name", "saved_version", "node")

    def __init__(self, tensor: Any, name: str, saved_version: int, node: Node) -> None:
        self.tensor = tensor
        self.name = name
        self.saved_version = saved_version
        self.node = node

    def __repr__(self) -> str:
        return f"<SavedVariable {self.name} of {self.node.name()} at version {self.saved_version}>"


class SavedOutput:
    """What a node keeps when it saves its own output: the values and the shared version
    counter, but not the output tensor itself (that would be a reference cycle). Reads like
    a tensor to the checks (`_data`, `_vc`, `_dtype`); `SavedVariable.tensor` and the
    `_saved_result` attribute turn it into a real tensor whose grad_fn is the node."""

    __slots__ = ("_data", "_vc", "_dtype", "_storage")
    _grad_fn = None
    _requires_grad = False
    _x = None

    def __init__(self, data: Any, vc: Any, dtype: Any, storage: Any) -> None:
        self._data = data
        self._vc = vc
        self._dtype = dtype
        self._storage = storage


class Node:
    """A backward function. Subclasses are made from data by `node_class()`.

    Class-level data (the row): `_name`, `_vjps` (one `vjp(k, g, saved, attrs)` per input,
    or None for an input with no gradient), `_save_names`, `_save_src` (input index per saved
    tensor, -1 for the result), `_save_need` (bitmask of the inputs whose vjp uses it),
    `_attr_names`.
    """

    __slots__ = (
        "next_functions",
        "_saved",
        "_versions",
        "_attrs",
        "_shape",
        "_npd",
        "_pre_hooks",
        "_hooks",
        "_meta",
        "_seq",
        "_trace",  # while recording: the trace record of the op that made it (engine/trace.py)
        "__weakref__",
    )
    # the slots' types (annotations only: the values live in the slots)
    next_functions: tuple[tuple[Any, int], ...]
    _saved: Any  # tuple of saved values, () before saving, None once freed
    _versions: tuple[int, ...]
    _attrs: tuple[Any, ...]
    _shape: Any  # the output's shape, or MULTI
    _npd: Any  # the output's numpy dtype, or one (shape, dtype) per output
    _pre_hooks: list[Any] | None
    _hooks: list[Any] | None
    _meta: dict[str, Any] | None
    _seq: int
    _trace: Any
    _name = "Node"
    _vjps: tuple[Any, ...] = ()  # a vjp per input (None: no gradient)
    _save_names: tuple[str, ...] = ()
    _save_src: tuple[int, ...] = ()
    _save_need: tuple[int, ...] = ()
    _attr_names: tuple[str, ...] = ()
    # the attributes as the rules read them (`a.dim`): a tuple class naming `_attr_names`,
    # made once per node class; `_attrs` itself stays the plain tuple the forward built
    _Attrs: Any = None
    # generated savers by input mask (engine/function.py), per node class
    _savers: ClassVar[dict[int, Any]]
    # forward mode (engine/forward_ad.py): one JVP rule per input, or one rule for all inputs;
    # `_jvp_view`: the rule returns a view of the input's tangent, kept aliased (view ops)
    _jvp: Any = None
    _jvp_view = False
    # a node whose backward is not a per-input vjp table (CopySlices) sets this function:
    # `_custom(node, g, tensor_mode) -> list of gradients, one per next_functions entry`
    _custom: Any = None  # a staticmethod, or None

    def name(self) -> str:
        return self._name

    def __dir__(self) -> list[str]:
        # NOTE: torchviz lists every attribute starting with `_saved_`; keep our own
        # diagnosis tuple out of that listing so its labels match torch's.
        return [k for k in super().__dir__() if k != "_saved_variables"]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    @property
    def metadata(self) -> dict[str, Any]:
        if self._meta is None:
            self._meta = {}
        return self._meta

    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """Post hook: `fn(grad_inputs, grad_outputs) -> tuple | None`."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(fn)
        return RemovableHandle(self._hooks, fn)

    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """Pre hook: `fn(grad_outputs) -> tuple | None`."""
        if self._pre_hooks is None:
            self._pre_hooks = []
        hook = NodePreHook(fn)
        self._pre_hooks.append(hook)
        return RemovableHandle(self._pre_hooks, hook)

    # -- saved tensors -------------------------------------------------------------------
    @property
    def _saved_variables(self) -> tuple[SavedVariable, ...]:
        """The saved tensors as SavedVariable objects (built on demand; empty once freed)."""
        saved = self._saved
        if not saved:
            return ()
        out = []
        for k, t in enumerate(saved):
            if t is None:
                continue
            obj = self._value_of_saved(k)
            out.append(SavedVariable(obj, self._save_names[k], self._versions[k], self))
        return tuple(out)

    def _value_of_saved(self, k: int) -> Any:
        """The k-th saved value as a tensor object: the input itself, or for the result a
        tensor aliasing it with this node as grad_fn (torch's unpack of a saved output).
        Tensors are made a layer up: engine/methods.py installs `tensor.saved_value` here."""
        raise NotImplementedError

    def _unpack(self, tensor_mode: bool) -> tuple[Any, ...]:
        """The saved values for the rule, after torch's checks (freed, detached in-place,
        version moved). numpy arrays in the fast mode, tensors when building a graph."""
        saved = self._saved
        if saved is None:
            raise RuntimeError(errors.BACKWARD_TWICE)
        if not saved:
            return saved
        if PACKED and self in PACKED:
            return self._unpack_packed(tensor_mode)
        if len(saved) == 1 and not tensor_mode:
            # fast path: one saved tensor whose version did not move
            t = saved[0]
            if t is not None and type(t) not in _SCALARS:
                vc = t._vc
                if (0 if vc is None else vc.v) == self._versions[0] and (
                    t._grad_fn is not None
                    or self._save_src[0] < 0
                    # an index a node saves beyond its edges (embedding, pools)
                    or self._save_src[0] >= len(self.next_functions)
                    or _was_leaf(self.next_functions[self._save_src[0]][0])
                ):
                    return (t._data,)
        out = []
        versions = self._versions
        for k, t in enumerate(saved):
            if t is None or type(t) in _SCALARS:
                out.append(t)
                continue
            vc = t._vc
            cur = vc.v if vc is not None else 0
            src = self._save_src[k]
            # NOTE: a saved tensor may have no edge of its own (nll_loss saves its target)
            nf = self.next_functions
            if src >= 0 and t._grad_fn is None and src < len(nf) and not _was_leaf(nf[src][0]):
                raise RuntimeError(errors.DETACHED_INPLACE)
            if cur != versions[k]:
                # NOTE: torch names the saved view's history as read now (regenerated)
                fn = self if src < 0 else (t.grad_fn if t._base is not None else t._grad_fn)
                msg = errors.inplace_message(t, None if fn is None else fn._name, cur, versions[k])
                sv = SavedVariable(self._value_of_saved(k), self._save_names[k], versions[k], self)
                raise errors.InplaceModifiedError(msg, sv, self)
            if tensor_mode:
                out.append(self._value_of_saved(k))
            else:
                out.append(t._data)
        return tuple(out)

    def _unpack_packed(self, tensor_mode: bool) -> tuple[Any, ...]:
        """_unpack for a node with packed slots: those come from their unpack hooks, in
        torch's save order (no version check: the hooks own the value), the rest as usual."""
        slots = PACKED[self]
        values: list[Any] = [None] * len(self._saved)
        for k in PACK_ORDER.get(self._name, range(len(self._saved))):
            if k in slots:
                t = unpacked(self, k)
                values[k] = t if tensor_mode else t._data
        plain = [k for k in range(len(self._saved)) if k not in slots]
        if plain:
            keep = self._saved
            self._saved = tuple(None if k in slots else t for k, t in enumerate(keep))
            try:
                rest = self._unpack_plain(tensor_mode)
            finally:
                self._saved = keep
            for k in plain:
                values[k] = rest[k]
        return tuple(values)

    def _unpack_plain(self, tensor_mode: bool) -> tuple[Any, ...]:
        hold = PACKED.pop(self)
        try:
            return self._unpack(tensor_mode)
        finally:
            PACKED[self] = hold

    def _release(self) -> None:
        if self._saved:
            self._saved = None


def _was_leaf(fn: Node | None) -> bool:
    return fn is None or type(fn) is AccumulateGrad


class NodePreHook:
    __slots__ = ("fn",)

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn


class AccumulateGrad(Node):
    """The node that writes a leaf's `.grad`; one per leaf, cached on the tensor."""

    __slots__ = ("variable", "_post_acc")
    _name = "torch::autograd::AccumulateGrad"

    def __init__(self, variable: Any) -> None:
        self.variable = variable
        self.next_functions = ()
        self._saved = ()
        self._versions = ()
        self._attrs = ()
        self._shape = variable._data.shape
        self._npd = variable._data.dtype
        self._pre_hooks = None
        self._hooks = None
        self._meta = None
        self._seq = next(_acc_seq)
        self._post_acc: list[Any] | None = None  # register_post_accumulate_grad_hook's hooks


class TensorHook:
    """A tensor hook registered on a non-leaf (stored on its grad_fn, as torch does)."""

    __slots__ = ("fn", "output_nr")

    def __init__(self, fn: Callable[..., Any], output_nr: int) -> None:
        self.fn = fn
        self.output_nr = output_nr


class RetainGradHook:
    """retain_grad(): copies the incoming gradient into the tensor's `.grad`; runs last."""

    __slots__ = ("ref", "output_nr")

    def __init__(self, tensor: Any) -> None:
        self.ref = weakref.ref(tensor)
        self.output_nr = tensor._output_nr


# every node class made by node_class(), by torch name (the JVP coverage test reads it)
NODE_CLASSES: dict[str, type[Node]] = {}


def _saved_prop(k: int) -> property:
    def get(self: Node) -> Any:
        if self._saved is None:
            # freed: torch raises only for what was actually saved (inputs requiring grad
            # decide that, and they are the non-None edges)
            need = self._save_need[k]
            mask = 0
            for i, e in enumerate(self.next_functions):
                if e[0] is not None:
                    mask |= 1 << i
            if need & mask:
                raise RuntimeError(errors.BACKWARD_TWICE)
            return None
        if not self._saved:
            return None
        if PACKED and k in PACKED.get(self, ()):
            return unpacked(self, k)
        return self._value_of_saved(k)

    return property(get)


def _raw_saved_prop(k: int) -> property:
    def get(self: Node) -> Any:
        return SavedTensor(self, k)

    return property(get)


# NOTE: torch shows int64 dimension/index attributes as unsigned: dim=-1 reads 2**64 - 1.
_UNSIGNED_ATTRS = frozenset(
    {"dim", "dims", "dim0", "dim1", "index", "start", "end", "step", "ignore_index", "pad"}
    | {"diagonal", "dim2", "offset"}
)


def _u64(v: Any) -> Any:
    if isinstance(v, tuple):
        return tuple(_u64(x) for x in v)
    if isinstance(v, int) and not isinstance(v, bool) and v < 0:
        return v + (1 << 64)
    return v


def _attr_prop(k: int, name: str) -> property:
    unsigned = name in _UNSIGNED_ATTRS

    def get(self: Node) -> Any:
        v = self._attrs[k] if self._attrs else None
        return _u64(v) if unsigned else v

    return property(get)


class Saved(NamedTuple):
    """One row of what a node saves: torch's name for it ('self', 'other', 'result', ...),
    its source (`src`: the input index, or RESULT for the op's output) and the inputs whose
    vjp reads it (`for_`): it is saved only when one of those requires grad, as torch's
    generated code does."""

    name: str
    src: int
    for_: tuple[int, ...]


RESULT = -1  # `Saved.src` of the op's own output


def node_class(
    name: str,
    vjps: tuple[Callable[..., Any] | None, ...],
    saved: tuple[Saved, ...] = (),
    attrs: tuple[str, ...] = (),
    cls_name: str | None = None,
    base: type[Node] = Node,
    jvp: Any = None,
    jvp_view: bool = False,
    custom: Callable[..., Any] | None = None,
    key: str | None = None,
) -> type[Node]:
    """Make (once) the node class for torch's backward name `name`.

    `vjps[i](k, g, s, a)` returns the gradient for input i from the incoming gradient `g`,
    the unpacked saved values `s` (a tuple in `saved` order), the attributes `a` (in `attrs`
    order), written with the rule kernels `k` (engine/rules.py). `saved` rows are `Saved`.
    `custom`: a backward that is not one vjp per input, `custom(node, g, tensor_mode)` ->
    the gradient per next_functions entry (several outputs, CopySlices).
    `jvp`: the forward-mode rules (one per input, or one for all inputs; see forward_ad.py);
    `jvp_view`: the output's tangent is the same view of the input's tangent (kept aliased);
    for a multi-output view (split, unbind) that geometry is the whole rule (`jvp` None).
    `key`: the class's own name in the cache where several ops share torch's `name`
    (`torch::autograd::NotImplemented`, whose backward names its op).
    """
    key = key or name
    if key in NODE_CLASSES:
        return NODE_CLASSES[key]
    ns: dict[str, Any] = {
        "__slots__": (),
        "_name": name,
        "_vjps": vjps,
        "_save_names": tuple(s.name for s in saved),
        "_save_src": tuple(s.src for s in saved),
        "_save_need": tuple(_mask(s.for_) for s in saved),
        "_attr_names": attrs,
        "_Attrs": _attrs_class(attrs) if attrs else None,
        "_savers": {},
        "_jvp": jvp,
        "_jvp_view": jvp_view,
    }
    if custom is not None:
        ns["_custom"] = staticmethod(custom)
    for k, s in enumerate(saved):
        ns["_saved_" + s.name] = _saved_prop(k)
        ns["_raw_saved_" + s.name] = _raw_saved_prop(k)
    for k, a in enumerate(attrs):
        ns["_saved_" + a] = _attr_prop(k, a)
    cls = type(cls_name or name, (base,), ns)
    cls.__module__ = "torch.autograd.graph" if cls_name else __name__
    NODE_CLASSES[key] = cls
    return cls


class _Attrs(tuple):  # type: ignore[type-arg]
    """Base of the per-class attribute tuples: built from values, `Attrs(1, 2)`."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __new__(cls, *values: Any) -> _Attrs:
        return tuple.__new__(cls, values)

    def __repr__(self) -> str:
        return f"Attrs({', '.join(f'{k}={v!r}' for k, v in zip(self._fields, self))})"


def _attrs_class(names: tuple[str, ...]) -> type:
    """The tuple subclass the rules read attributes through (`a.dim`): one read-only property
    per name. Not collections.namedtuple, whose class is compiled with eval (about 0.3 ms
    each, a sixth of importing the engine across the ~150 classes)."""
    ns: dict[str, Any] = {"__slots__": (), "_fields": names}
    for k, a in enumerate(names):
        ns[a] = property(operator.itemgetter(k))
    return type("Attrs", (_Attrs,), ns)


def _mask(inputs: tuple[int, ...]) -> int:
    m = 0
    for i in inputs:
        m |= 1 << i
    return m


def named_attrs(node: Node) -> Any:
    """`node`'s attributes as its rules read them: by name (`a.dim`) where the class names
    them. A named view of the same tuple, built only when a rule runs."""
    a = node._attrs
    named = node._Attrs
    if named is None or not a or a.__class__ is not tuple:
        return a  # nothing to name, or named already (constants such as alpha=1)
    return _tuple_new(named, a)


_tuple_new = tuple.__new__


def set_jvp(cls: type[Node], rules: Any, *, view: bool = False) -> None:
    """Give `cls` its forward-mode rules after the fact (when they are written below it)."""
    cls._jvp = rules
    cls._jvp_view = view


class CopySlices(Node):
    """torch's CopySlices: the base's new history after an in-place op on one of its views.
    `_fn` is the in-place op's own node, `_view_args` the view's (size, stride, offset, base
    shape); its backward (`_custom`) is written with the in-place ops (ops/inplace.py)."""

    __slots__ = ("_fn", "_view_args")
    _fn: Node
    _view_args: tuple[Any, ...]
    _name = "torch::autograd::CopySlices"


CopySlices.__module__ = "torch.autograd.graph"


N = TypeVar("N", bound=Node)


def new_node(cls: type[N], edges: tuple[Any, ...], attrs: tuple[Any, ...] = ()) -> N:
    """A node with its edges set and nothing saved yet (saving is the op's job)."""
    n = cls.__new__(cls)
    n.next_functions = edges
    n._saved = ()
    n._versions = ()
    n._attrs = attrs
    n._shape = None
    n._npd = None
    n._pre_hooks = None
    n._hooks = None
    n._meta = None
    n._seq = next_seq()
    return n
