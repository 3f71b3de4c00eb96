"""The torch engine: scripts run on the installed PyTorch, traced into detachviz's records.

Imported only when `--engine torch` (or `DETACHVIZ_ENGINE=torch`, `trace(engine="torch")`,
`%%detachviz --engine torch`) is chosen; it is the one part of detachviz that imports torch,
and it does so on first use (`load()`), so a missing PyTorch is one clear line, exit 2.
The records it makes are the numpy engine's (`engine/trace.py`), so capture, `grad` and
diagnosis need nothing else (see tracer.py for how).
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

from detachviz.engine import trace
from detachviz.errors import UserError

INSTALL_HINT = "pip install torch"


def load() -> ModuleType:
    """The real torch module (imported on first call), or a UserError saying how to get it."""
    try:
        import torch
    except ImportError:
        raise UserError(
            f"--engine torch needs PyTorch, which is not installed: `{INSTALL_HINT}` "
            "(or use the default engine, --engine detachviz)"
        ) from None
    if not hasattr(torch, "overrides"):  # detachviz's own namespace under the name torch
        raise UserError("--engine torch cannot run inside a script on detachviz's engine")
    return torch


def real_modules() -> dict[str, ModuleType]:
    """sys.modules' entries of the real torch (for a run inside detachviz's own swap)."""
    load()
    return {k: v for k, v in sys.modules.items() if _is_real_torch(k, v)}


def _is_real_torch(name: str, module: Any) -> bool:
    if name != "torch" and not name.startswith("torch."):
        return False
    return not getattr(module, "__name__", "").startswith("detachviz")


def is_tensor(value: object) -> bool:
    """A real torch tensor (False while torch is not loaded)."""
    torch = sys.modules.get("torch")
    tensor = getattr(torch, "Tensor", None) if torch is not None else None
    if tensor is None or not hasattr(torch, "overrides"):
        return False
    return isinstance(value, tensor)


def without_dispatch(frames: list[Any]) -> list[Any]:
    """A traceback's frames without the two that only tracing adds: torch's
    `handle_torch_function` and the `return handle_torch_function(...)` that called it (the
    function then runs again, and its own frame follows), so that a script's error reads as
    `python` prints it."""
    out: list[Any] = []
    for f in frames:
        if f.filename.endswith(("torch/overrides.py", "torch\\overrides.py")):
            if out and "handle_torch_function" in (f"{out[-1].line}" or ""):
                out.pop()
            continue
        out.append(f)
    return out


class recording:  # noqa: N801 - used like trace.recording: `with recording(script) as rec:`
    """Record every torch call while the block runs into a fresh TorchRecorder, which is
    also `trace.RECORDER` meanwhile (so `make_dot` inside the script draws its cuts)."""

    def __init__(self, script: str | None = None) -> None:
        load()
        from detachviz.torch_engine.recorder import TorchRecorder
        from detachviz.torch_engine.tracer import Tracer

        self.recorder = TorchRecorder(script)
        self._mode = Tracer(self.recorder)
        self._previous: trace.Recorder | None = None

    def __enter__(self) -> trace.Recorder:
        import torch

        self._previous = trace.RECORDER
        trace.RECORDER = self.recorder
        # NOTE: a custom autograd.Function is no torch function the mode sees: its apply is
        # wrapped meanwhile, so that it is one op, as on the numpy engine.
        function = torch.autograd.Function
        self._apply = function.__dict__["apply"]
        real, mode = self._apply.__func__, self._mode

        def apply(cls: Any, *args: Any, **kwargs: Any) -> Any:
            return mode.apply(real, cls, args, kwargs)

        function.apply = classmethod(apply)  # type: ignore[method-assign,assignment]
        self._mode.__enter__()
        return self.recorder

    def __exit__(self, *exc: object) -> None:
        import torch

        self._mode.__exit__(None, None, None)
        torch.autograd.Function.apply = self._apply  # type: ignore[method-assign]
        trace.RECORDER = self._previous
