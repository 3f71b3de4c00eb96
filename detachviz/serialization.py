"""torch.save / torch.load in PyTorch's own zip format, so a file written by real PyTorch loads
here and one written here loads in PyTorch.

The format (torch 2.x, `_use_new_zipfile_serialization=True`): an uncompressed zip whose
entries sit under one folder (the file's stem, or "archive" for a file object):
`data.pkl` (the object, pickle protocol 2), `.format_version`, `.storage_alignment`,
`byteorder`, `data/<key>` (each storage's raw bytes, aligned to 64 bytes), `version` and
`.data/serialization_id`. In data.pkl a tensor is `torch._utils._rebuild_tensor_v2(storage,
offset, size, stride, requires_grad, OrderedDict())`, a Parameter `_rebuild_parameter(tensor,
requires_grad, OrderedDict())`, and a storage the persistent id `('storage',
torch.<Type>Storage, key, 'cpu', numel)`. Tensors that share a storage are saved once and
share it again after loading.

`weights_only=True` (torch 2.13's default) loads only tensors, containers and plain values;
anything else is refused with torch's UnpicklingError, as torch refuses it.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import importlib
import io
import os
import pickle
import zipfile
from collections.abc import Iterator
from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine.device import device
from detachviz.engine.size import Size
from detachviz.engine.tensor import Tensor, wrap

__all__ = ["add_safe_globals", "get_safe_globals", "load", "safe_globals", "save"]

DEFAULT_PROTOCOL = 2
_ALIGNMENT = 64

# storage type name <-> dtype (torch.FloatStorage holds float32, ...)
_STORAGE = {
    "float32": "FloatStorage",
    "float64": "DoubleStorage",
    "float16": "HalfStorage",
    "bfloat16": "BFloat16Storage",
    "int64": "LongStorage",
    "int32": "IntStorage",
    "int16": "ShortStorage",
    "int8": "CharStorage",
    "uint8": "ByteStorage",
    "bool": "BoolStorage",
    "complex64": "ComplexFloatStorage",
    "complex128": "ComplexDoubleStorage",
}
_DTYPE_OF_STORAGE = {v: k for k, v in _STORAGE.items()}


def _dtype(name: str) -> dtypes.dtype:
    found = getattr(dtypes, name, None) or getattr(dtypes, name + "_", None)
    if not isinstance(found, dtypes.dtype):
        raise RuntimeError(f"detachviz cannot load tensors of dtype torch.{name}")
    return found


# -- saving -------------------------------------------------------------------------------


class _Global:
    """A name pickled as `GLOBAL module name` without importing it (real torch is never
    imported here)."""

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def __call__(self, *args: Any) -> Any:  # pickle wants a callable; only torch calls it
        raise TypeError(f"{self.module}.{self.name} is a name in a saved file")


_GLOBALS: dict[tuple[str, str], _Global] = {}


def _global(module: str, name: str) -> _Global:
    """One object per name, so pickle's memo writes each GLOBAL once, as torch's file does."""
    return _GLOBALS.setdefault((module, name), _Global(module, name))


_REBUILD_TENSOR = _global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _global("torch._utils", "_rebuild_parameter")
_ORDERED_DICT = collections.OrderedDict


# where torch defines each nn.Module class (torch.nn.modules.<file>.<Name>): a whole module is
# pickled by reference to its class, so a detachviz layer is written under torch's name
_TORCH_NN_FILES = {
    "activation": "ELU GELU Hardtanh LeakyReLU LogSoftmax MultiheadAttention ReLU ReLU6 SiLU "
    "Sigmoid Softmax Softplus Tanh",
    "batchnorm": "BatchNorm1d BatchNorm2d BatchNorm3d",
    "container": "ModuleDict ModuleList ParameterDict ParameterList Sequential",
    "conv": "Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d",
    "distance": "CosineSimilarity PairwiseDistance",
    "dropout": "Dropout",
    "flatten": "Flatten Unflatten",
    "linear": "Identity LazyLinear Linear NonDynamicallyQuantizableLinear",
    "loss": "BCELoss BCEWithLogitsLoss CrossEntropyLoss HuberLoss KLDivLoss L1Loss MSELoss "
    "MarginRankingLoss NLLLoss SmoothL1Loss SoftMarginLoss TripletMarginLoss",
    "module": "Module",
    "normalization": "GroupNorm LayerNorm",
    "pooling": "AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveMaxPool1d AdaptiveMaxPool2d "
    "AvgPool1d AvgPool2d MaxPool1d MaxPool2d",
    "rnn": "GRU GRUCell LSTM LSTMCell RNN RNNBase RNNCell RNNCellBase",
    "sparse": "Embedding",
    "transformer": "Transformer TransformerEncoder TransformerEncoderLayer",
}
_TORCH_NN_MODULE = {
    name: "torch.nn.modules." + file
    for file, names in _TORCH_NN_FILES.items()
    for name in names.split()
}


def _torch_name(obj: Any) -> tuple[str, str] | None:
    """torch's (module, name) for a detachviz class or function pickled by reference, or None
    for anything else (a user's class keeps its own module: it imports torch itself)."""
    module = getattr(obj, "__module__", None) or ""
    if not module.startswith("detachviz."):
        return None
    name = obj.__qualname__
    if isinstance(obj, type) and module.startswith("detachviz.nn"):
        where = _TORCH_NN_MODULE.get(name)
        if where is None:
            raise NotImplementedError(
                f"torch.save of a {name} module is not supported by detachviz (its place in "
                "torch.nn is unknown)"
            )
        return where, name
    if module.startswith("detachviz.nn.functional"):
        return "torch.nn.functional", name
    raise NotImplementedError(
        f"torch.save: {module}.{name} (a detachviz object) cannot be written in torch's format"
    )


class _StorageRef:
    def __init__(self, array: np.ndarray, dtype: dtypes.dtype) -> None:
        self.array = array
        self.dtype = dtype


class _PlainTensor:
    """A tensor pickled without its requires_grad (a Parameter's data)."""

    def __init__(self, tensor: Tensor) -> None:
        self.tensor = tensor


class _Writer(pickle._Pickler):  # type: ignore[name-defined,misc]
    """Pickles tensors, Parameters, Size, dtype and device under torch's names, collecting
    each distinct storage once (keys "0", "1", ... in order of first use)."""

    def __init__(self, file: Any, protocol: int) -> None:
        super().__init__(file, protocol)
        self.storages: dict[int, tuple[str, np.ndarray, dtypes.dtype]] = {}

    def persistent_id(self, obj: Any) -> Any:
        if not isinstance(obj, _StorageRef):
            return None
        ident = id(obj.array)
        if ident not in self.storages:
            self.storages[ident] = (str(len(self.storages)), obj.array, obj.dtype)
        key = self.storages[ident][0]
        storage_type = _global("torch", _STORAGE[obj.dtype.name])
        return ("storage", storage_type, key, "cpu", int(obj.array.size))

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, _PlainTensor):
            return _tensor_reduction(obj.tensor, False)
        if isinstance(obj, Tensor):
            if type(obj) in _PARAMETER_TYPES:
                return (_REBUILD_PARAMETER, (_PlainTensor(obj), obj.requires_grad, _ORDERED_DICT()))
            return _tensor_reduction(obj, obj.requires_grad)
        if isinstance(obj, Size):
            return (_global("torch", "Size"), (tuple(obj),))
        if isinstance(obj, device):
            return (_global("torch", "device"), (obj.type,))
        if isinstance(obj, (dtypes.dtype, _Global)):
            return obj.name  # a bare name: pickle hands it to save_global below
        return NotImplemented

    def save_global(self, obj: Any, name: Any = None) -> None:
        if isinstance(obj, _Global):
            module, name = obj.module, obj.name
        elif isinstance(obj, dtypes.dtype):
            module, name = "torch", obj.name
        else:
            where = _torch_name(obj)
            if where is None:
                super().save_global(obj, name)  # type: ignore[misc]
                return
            module, name = where
        self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode())  # type: ignore[attr-defined]
        self.memoize(obj)  # type: ignore[attr-defined]


def _contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= max(n, 1)
    return tuple(reversed(out))


def _tensor_reduction(t: Tensor, requires_grad: bool) -> tuple[Any, tuple[Any, ...]]:
    shape = tuple(t.shape)
    # numpy's strides of a contiguous array can differ from torch's at dims of size 0 or 1
    stride = _contiguous_strides(shape) if t.is_contiguous() else t.stride()
    return (
        _REBUILD_TENSOR,
        (
            _StorageRef(t._storage, t.dtype),
            t.storage_offset(),
            shape,
            stride,
            requires_grad,
            _ORDERED_DICT(),
        ),
    )


def _archive_name(f: Any) -> str:
    if isinstance(f, (str, os.PathLike)):
        return os.path.splitext(os.path.basename(os.fspath(f)))[0]
    return "archive"


def _write_record(zf: zipfile.ZipFile, name: str, data: bytes, align: bool) -> None:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    if align and zf.fp is not None and zf.fp.seekable():
        start = zf.fp.tell() + 30 + len(name.encode())
        pad = -start % _ALIGNMENT
        if pad and pad < 4:
            pad += _ALIGNMENT
        if pad:
            info.extra = b"FB" + (pad - 4).to_bytes(2, "little") + b"Z" * (pad - 4)
    zf.writestr(info, data)


def save(
    obj: Any,
    f: Any,
    pickle_module: Any = pickle,
    pickle_protocol: int = DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """torch.save: write obj to a path or a writable binary file object."""
    if pickle_module is not pickle:
        raise NotImplementedError("torch.save(pickle_module=...) is not supported by detachviz")
    if not _use_new_zipfile_serialization:
        raise NotImplementedError(
            "torch.save(_use_new_zipfile_serialization=False) (the legacy format) is not "
            "supported by detachviz"
        )
    buf = io.BytesIO()
    writer = _Writer(buf, pickle_protocol)
    writer.dump(obj)
    pkl = buf.getvalue()
    prefix = _archive_name(f)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            _write_archive(fh, prefix, pkl, writer.storages, _disable_byteorder_record)
    else:
        _write_archive(f, prefix, pkl, writer.storages, _disable_byteorder_record)


def _write_archive(
    fh: Any, prefix: str, pkl: bytes, storages: dict[int, Any], no_byteorder: bool
) -> None:
    with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED) as zf:
        _write_record(zf, f"{prefix}/data.pkl", pkl, False)
        _write_record(zf, f"{prefix}/.format_version", b"1", False)
        _write_record(zf, f"{prefix}/.storage_alignment", str(_ALIGNMENT).encode(), False)
        if not no_byteorder:
            _write_record(zf, f"{prefix}/byteorder", b"little", False)
        digest = hashlib.sha1(pkl)
        for key, array, _dt in storages.values():
            data = (
                np.ascontiguousarray(array)
                .reshape(-1)
                .astype(array.dtype.newbyteorder("<"))
                .tobytes()
            )
            digest.update(data)
            _write_record(zf, f"{prefix}/data/{key}", data, True)
        _write_record(zf, f"{prefix}/version", b"3\n", False)
        # torch writes a 40-character id here; ours is derived from the content (no clock)
        _write_record(zf, f"{prefix}/.data/serialization_id", digest.hexdigest().encode(), False)


# -- loading ------------------------------------------------------------------------------

_SAFE_BUILTINS = {
    "set",
    "frozenset",
    "bytearray",
    "complex",
    "slice",
    "range",
    "int",
    "float",
    "bool",
    "str",
    "bytes",
    "tuple",
    "list",
    "dict",
}
_USER_SAFE: dict[tuple[str, str], Any] = {}


def _rebuild_tensor_v2(
    storage: _StorageRef,
    storage_offset: int,
    size: tuple[int, ...],
    stride: tuple[int, ...],
    requires_grad: bool,
    backward_hooks: Any,
    metadata: Any = None,
) -> Tensor:
    arr = storage.array
    view = np.lib.stride_tricks.as_strided(
        arr[storage_offset:],
        shape=tuple(size),
        strides=tuple(s * arr.itemsize for s in stride),
    )
    t = wrap(view, storage.dtype)
    t._storage = arr  # tensors saved from one storage share it again, as in torch
    if requires_grad:
        t.requires_grad_(True)
    return t


# nn.Parameter, registered by detachviz.nn (which sits above this module: importing it here
# would make a cycle through detachviz.torch)
_PARAMETER_TYPES: list[type] = []


def register_parameter_type(cls: type) -> None:
    """Tell the loader which class rebuilds `torch._utils._rebuild_parameter` (nn.Parameter)."""
    if cls not in _PARAMETER_TYPES:
        _PARAMETER_TYPES.append(cls)


def _rebuild_parameter(data: Tensor, requires_grad: bool, backward_hooks: Any) -> Any:
    if not _PARAMETER_TYPES:
        importlib.import_module("detachviz.nn")  # registers nn.Parameter
    return _PARAMETER_TYPES[0](data, requires_grad)


def _rebuild_parameter_with_state(
    data: Tensor, requires_grad: bool, backward_hooks: Any, state: Any
) -> Any:
    p = _rebuild_parameter(data, requires_grad, backward_hooks)
    if state:
        for k, v in state.items() if isinstance(state, dict) else []:
            setattr(p, k, v)
    return p


class _StorageType:
    def __init__(self, dtype_name: str) -> None:
        self.dtype_name = dtype_name


def _torch_global(name: str) -> Any:
    """What a `GLOBAL torch <name>` in a checkpoint means here, or None."""
    if name in _DTYPE_OF_STORAGE:
        return _StorageType(_DTYPE_OF_STORAGE[name])
    if name == "Size":
        return Size
    if name == "device":
        return device
    found = getattr(dtypes, name, None)
    if isinstance(found, dtypes.dtype):
        return found
    return None


_TORCH_UTILS = {
    "_rebuild_tensor_v2": _rebuild_tensor_v2,
    "_rebuild_parameter": _rebuild_parameter,
    "_rebuild_parameter_with_state": _rebuild_parameter_with_state,
}


def _unsupported_global(module: str, name: str) -> pickle.UnpicklingError:
    full = f"{module}.{name}"
    return pickle.UnpicklingError(
        "Weights only load failed. This file can still be loaded, to do so you have two "
        "options, \033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
        "\n\t(1) In "
        "PyTorch 2.6, we changed the default value of the `weights_only` argument in "
        "`torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set "
        "to `False` will likely succeed, but it can result in arbitrary code execution. Do it "
        "only if you got the file from a trusted source.\n\t(2) Alternatively, to load with "
        "`weights_only=True` please check the recommended steps in the following error "
        f"message.\n\tWeightsUnpickler error: Unsupported global: GLOBAL {full} was not an "
        "allowed global by default. Please use `torch.serialization.add_safe_globals"
        f"([{full}])` or the `torch.serialization.safe_globals([{full}])` context manager to "
        "allowlist this global if you trust this class/function.\n\nCheck the documentation "
        "of torch.load to learn more about types accepted by default with weights_only "
        "https://pytorch.org/docs/stable/generated/torch.load.html."
    )


class _Reader(pickle.Unpickler):
    def __init__(
        self, file: Any, zf: zipfile.ZipFile, prefix: str, weights_only: bool, swap: bool
    ) -> None:
        super().__init__(file)
        self.zf = zf
        self.prefix = prefix
        self.weights_only = weights_only
        self.swap = swap
        self.loaded: dict[str, _StorageRef] = {}

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _USER_SAFE:
            return _USER_SAFE[(module, name)]
        if module == "torch._utils" and name in _TORCH_UTILS:
            return _TORCH_UTILS[name]
        if module == "torch":
            found = _torch_global(name)
            if found is not None:
                return found
        if module == "collections" and name in ("OrderedDict", "Counter", "defaultdict"):
            return getattr(collections, name)
        if module == "builtins" and name in _SAFE_BUILTINS:
            return super().find_class(module, name)
        if self.weights_only:
            raise _unsupported_global(module, name)
        if module.startswith("torch.nn.modules.") or module == "torch.nn.functional":
            # a whole module saved by torch: its layers are detachviz's classes of that name
            nn = importlib.import_module(
                "detachviz.nn.functional" if module == "torch.nn.functional" else "detachviz.nn"
            )
            found = nn.__dict__.get(name)
            if found is not None:
                return found
        if module == "torch" or module.startswith("torch."):
            raise pickle.UnpicklingError(
                f"torch.load: {module}.{name} in this file is not supported by detachviz"
            )
        return super().find_class(module, name)

    def persistent_load(self, saved_id: Any) -> Any:
        if not (isinstance(saved_id, tuple) and saved_id and saved_id[0] == "storage"):
            raise pickle.UnpicklingError(f"unknown persistent id {saved_id!r}")
        _, storage_type, key, location, numel = saved_id
        if key not in self.loaded:
            if not isinstance(storage_type, _StorageType):
                raise pickle.UnpicklingError(
                    f"torch.load: storage type {storage_type!r} is not supported by detachviz"
                )
            dt = _dtype(storage_type.dtype_name)
            raw = self.zf.read(f"{self.prefix}/data/{key}")
            np_dtype = np.dtype(dt.np)
            np_dtype = np_dtype.newbyteorder(">") if self.swap else np_dtype.newbyteorder("<")
            array = np.frombuffer(raw, dtype=np_dtype).astype(dt.np)
            self.loaded[key] = _StorageRef(array, dt)
        return self.loaded[key]


def _check_map_location(map_location: Any) -> None:
    if map_location is None or callable(map_location):
        return
    if isinstance(map_location, dict):
        targets = list(map_location.values())
    else:
        targets = [map_location]
    for target in targets:
        kind = target.type if isinstance(target, device) else str(target).split(":")[0]
        if kind != "cpu":
            raise RuntimeError(
                f"torch.load(map_location={map_location!r}): detachviz runs on the CPU only"
            )


def load(
    f: Any,
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args: Any,
) -> Any:
    """torch.load: read an object saved by torch.save (here or by PyTorch) from a path or a
    readable binary file object."""
    if pickle_module is not None and pickle_module is not pickle:
        raise NotImplementedError("torch.load(pickle_module=...) is not supported by detachviz")
    if pickle_load_args:
        raise NotImplementedError(
            f"torch.load({', '.join(pickle_load_args)}=...) is not supported by detachviz"
        )
    _check_map_location(map_location)
    if weights_only is None:
        weights_only = os.environ.get("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0") in ("", "0")
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return _load_archive(fh, weights_only)
    return _load_archive(f, weights_only)


def _load_archive(fh: Any, weights_only: bool) -> Any:
    if not zipfile.is_zipfile(fh):
        raise NotImplementedError(
            "torch.load of the legacy (pre-1.6, non-zip) format is not supported by detachviz"
        )
    fh.seek(0) if hasattr(fh, "seek") else None
    with zipfile.ZipFile(fh) as zf:
        names = zf.namelist()
        pkl = next((n for n in names if n.endswith("data.pkl") and n.count("/") == 1), None)
        if pkl is None:
            raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
        prefix = pkl.rsplit("/", 1)[0]
        order = f"{prefix}/byteorder"
        swap = order in names and zf.read(order).strip() == b"big"
        reader = _Reader(io.BytesIO(zf.read(pkl)), zf, prefix, weights_only, swap)
        return reader.load()


# -- the allowlist for weights_only ------------------------------------------------------


def add_safe_globals(safe_globals: list[Any]) -> None:
    """Allow these classes/functions in weights_only loads."""
    for g in safe_globals:
        obj, name = g if isinstance(g, tuple) else (g, f"{g.__module__}.{g.__qualname__}")
        module, _, short = name.rpartition(".")
        _USER_SAFE[(module, short)] = obj


def get_safe_globals() -> list[Any]:
    return list(_USER_SAFE.values())


def clear_safe_globals() -> None:
    _USER_SAFE.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: list[Any]) -> Iterator[None]:
    saved = dict(_USER_SAFE)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _USER_SAFE.clear()
        _USER_SAFE.update(saved)
