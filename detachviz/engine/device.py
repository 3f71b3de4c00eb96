"""torch.device, and what a CPU-only torch 2.13 build answers about devices: only the CPU
exists; asking for another device raises what that build raises (`place`), and the
accelerator queries (`torch.cuda`, `torch.backends.mps`, `torch.accelerator`) say "none"."""

from __future__ import annotations

from typing import Any

from detachviz.engine import state
from detachviz.engine.unsupported import Namespace

# torch's device-type names, in the order its parse error lists them
DEVICE_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
    "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)  # fmt: skip

NO_ACCELERATOR = "Cannot access accelerator device when none is available."
NO_CUDA = "Torch not compiled with CUDA enabled"
NO_MPS = "PyTorch is not linked with support for mps devices"
# the backends a CPU-only build was compiled without, and how it says so
_NOT_COMPILED = {"cuda": NO_CUDA, "xpu": "Torch not compiled with XPU enabled"}


class device:  # noqa: N801 - torch's name
    """torch.device: a device type and an optional index (parsed as torch parses them)."""

    __slots__ = ("type", "index")

    type: str
    index: int | None

    def __init__(self, type: Any = "cpu", index: int | None = None) -> None:  # noqa: A002
        spec: Any = type
        if isinstance(spec, device):
            kind, index = spec.type, spec.index
        elif isinstance(spec, int) and not isinstance(spec, bool):
            # NOTE: a bare index means "the current accelerator", and there is none
            raise RuntimeError(NO_ACCELERATOR)
        elif not isinstance(spec, str):
            raise TypeError(
                f"device() received an invalid combination of arguments - got ({_tn(spec)})"
            )
        else:
            kind, sep, num = spec.partition(":")
            if sep:
                if index is not None or not num.isdigit():
                    raise RuntimeError(f"Invalid device string: '{spec}'")
                index = int(num)
            if kind not in DEVICE_TYPES:
                raise RuntimeError(
                    f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device "
                    f"string: {spec}"
                )
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type = kind
        self.index = index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        # NOTE: torch compares devices only with devices: device('cpu') == 'cpu' is False
        return isinstance(other, device) and (other.type, other.index) == (self.type, self.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self) -> Any:
        return (device, (self.type, self.index))


CPU = device("cpu")


def _tn(value: Any) -> str:
    return type(value).__name__


def place(where: Any) -> device:
    """The device a tensor asked to live on `where` gets: the CPU, or torch's CPU-only error
    for any other device (`None` means the default device, which is the CPU)."""
    if where is None:
        if state.default_device is None:
            return CPU
        where = state.default_device
    d = where if isinstance(where, device) else device(where)
    if d.type == "cpu":
        return CPU
    if d.type in _NOT_COMPILED:
        raise AssertionError(_NOT_COMPILED[d.type])
    if d.type == "mps":
        raise RuntimeError(NO_MPS)
    raise RuntimeError(f"device type '{d.type}' is not supported by detachviz (CPU only)")


def set_default_device(where: Any) -> None:
    """torch.set_default_device: a non-CPU default is accepted, as torch accepts it; the
    factories that then try to allocate there raise (`place`)."""
    d = CPU if where is None else where if isinstance(where, device) else device(where)
    state.default_device = None if d.type == "cpu" else d


def get_default_device() -> device:
    return CPU if state.default_device is None else state.default_device


class _Cuda(Namespace):
    """torch.cuda on a CPU-only build: nothing is available; touching a device raises."""

    _path = "torch.cuda"

    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def is_initialized() -> bool:
        return False

    @staticmethod
    def device_count() -> int:
        return 0

    @staticmethod
    def manual_seed(seed: Any) -> None:
        return None  # torch queues the seed for a CUDA init that never comes

    manual_seed_all = manual_seed

    @staticmethod
    def empty_cache() -> None:
        return None

    @staticmethod
    def _no_cuda(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(NO_CUDA)

    current_device = synchronize = get_device_name = get_device_properties = _no_cuda
    set_device = memory_allocated = max_memory_allocated = _no_cuda


class _Mps(Namespace):
    _path = "torch.backends.mps"

    @staticmethod
    def is_available() -> bool:
        return False

    is_built = is_available


class _Backend(Namespace):
    """torch.backends.cuda / cudnn: not built; the flags scripts set are plain attributes."""

    def __init__(self, path: str, **flags: Any) -> None:
        self._path = path
        self.__dict__.update(flags)

    @staticmethod
    def is_available() -> bool:
        return False

    is_built = is_available


class _Backends(Namespace):
    _path = "torch.backends"

    def __init__(self) -> None:
        self.mps = _Mps()
        self.cuda = _Backend("torch.backends.cuda")
        self.cudnn = _Backend(
            "torch.backends.cudnn", enabled=True, deterministic=False, benchmark=False
        )


class _Accelerator(Namespace):
    """torch.accelerator: no accelerator."""

    _path = "torch.accelerator"

    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def current_accelerator(check_available: bool = False) -> None:
        return None

    @staticmethod
    def device_count() -> int:
        return 0

    @staticmethod
    def current_device_index() -> int:
        raise RuntimeError(NO_ACCELERATOR)


cuda = _Cuda()
backends = _Backends()
accelerator = _Accelerator()
