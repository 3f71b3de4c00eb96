"""Every process-wide engine setting, in one place, and `reset()` back to a fresh process.

`python SCRIPT` starts every script in a new process; the runner runs many in one (batch
rendering, tests), so it calls `reset()` before each script. A setting that is not here is
not process-wide: add new ones here (a module attribute, its fresh value in `reset()`).

Ops read these as plain module attributes (`state.grad_enabled`): the cheapest check Python
allows on the hot path. torch keeps grad mode thread local; scripts here are single threaded.
"""

from __future__ import annotations

import dataclasses
import weakref
from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes


@dataclasses.dataclass
class PrintOptions:
    """torch's `PRINT_OPTS`: the knobs `torch.set_printoptions` turns."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


# grad mode (torch.no_grad / enable_grad / set_grad_enabled) and inference mode
grad_enabled = True
inference = False
# torch.autograd.set_detect_anomaly / detect_anomaly
anomaly: dict[str, bool] = {"enabled": False, "check_nan": True}
# forward AD: the dual level (-1: none), the hooks the op kit calls while one is active
# (engine/forward_ad.py sets them) and every tensor given a tangent at that level
fw_level = -1
fw_hooks: Any = None
fw_live: weakref.WeakSet[Any] = weakref.WeakSet()
# saved-tensor hooks (engine/graph_hooks.py): the active (pack, unpack) pairs, innermost
# last, and the message of an active disable_saved_tensors_hooks (None: allowed)
saved_hooks: list[tuple[Any, Any]] = []
saved_hooks_disabled: str | None = None
# counts backward passes (autograd.grad too): register_multi_grad_hook tells passes apart
backward_pass = 0
# the running backward pass's (reachable nodes, nodes that run if only some do) for
# register_multi_grad_hook(mode="all"), which must know which of its tensors the pass reaches
backward_reach: Any = None
# torch.set_default_device: None is the CPU; another device makes factories raise
default_device: Any = None
# torch.set_printoptions
print_options = PrintOptions()
# torch.set_default_dtype: a python float joins ops as this dtype
default_dtype: dtypes.dtype = dtypes.float32
# torch.default_generator: the generator behind every random draw (engine/sampling.py makes
# it, a torch.Generator, when it loads: it needs the Tensor layer; its identity never changes)
default_generator: Any = None
# warn-once flags: torch warns the first time in a process only
warned_typed_storage = False
# NOTE: not a setting but a fast-path hint that only ever turns on: set once any non-leaf is
# detach_()'d; until then backward may skip the "saved tensor detached in-place" check.
# reset() leaves it alone: tensors of an earlier script may still be in use.
detached_inplace = False
# the same kind of hint: set once any saved tensor was packed by a saved-tensor hook
packed = False


def reset() -> None:
    """Put every process-wide setting back as a new process would have it."""
    global grad_enabled, inference, fw_level, fw_hooks, default_dtype, warned_typed_storage
    global saved_hooks_disabled, default_device
    grad_enabled = True
    inference = False
    saved_hooks.clear()
    saved_hooks_disabled = None
    default_device = None
    anomaly.update(enabled=False, check_nan=True)
    for t in list(fw_live):
        t._fw_tangent = None
    fw_live.clear()
    fw_level = -1
    fw_hooks = None
    fresh = PrintOptions()
    for f in dataclasses.fields(PrintOptions):
        setattr(print_options, f.name, getattr(fresh, f.name))
    default_dtype = dtypes.float32
    # NOTE: torch seeds it from the OS at process start; here every script starts from 0
    default_generator.manual_seed(0)
    warned_typed_storage = False


def float_errors_silenced() -> np.errstate:
    """numpy warns on 1/0, log(0), 0/0; torch silently gives inf and nan. Scripts run
    inside this context so their stderr is what torch would print."""
    return np.errstate(all="ignore")
