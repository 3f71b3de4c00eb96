"""Runs a user script like `python SCRIPT`, with `import torch` resolving to detachviz.

The runner owns the sys.modules swap (restored afterwards), the script's globals (pre-bound
`torch`, `T`, `nn`, `F`, `make_dot`, as tutorial snippets assume), the optional trace
recording, and turning a script failure into a traceback trimmed to the user's own frames.
"""

from __future__ import annotations

import importlib
import importlib.abc
import os
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from detachviz.engine import trace

# What `import X` resolves to while a script runs. Modules load lazily, in this order.
COMPAT_MODULES = {
    "torch": "detachviz.torch",
    "torch.autograd": "detachviz.torch.autograd",
    "torch.autograd.forward_ad": "detachviz.engine.forward_ad",
    "torch.nn": "detachviz.nn",
    "torch.nn.functional": "detachviz.nn.functional",
    "torch.optim": "detachviz.optim",
    "torchviz": "detachviz.torchviz",
}

_PACKAGE_DIR = str(Path(__file__).resolve().parent)


class ScriptNotFound(Exception):
    """The script path does not name a readable file."""


@dataclass
class RunResult:
    """What a script run left behind."""

    path: Path
    namespace: dict[str, Any] = field(default_factory=dict)
    recorder: trace.Recorder | None = None
    exit_code: int = 0
    error: BaseException | None = None
    error_text: str = ""  # the trimmed traceback, as `python` would print it
    error_line: int | None = None  # the script line that raised, when known

    @property
    def failed(self) -> bool:
        return self.exit_code != 0


class _UnsupportedTorch(importlib.abc.MetaPathFinder):
    """Turns `import torch.fft` (anything we do not provide) into a clear error."""

    def find_spec(self, fullname: str, path: object, target: object = None) -> None:
        if (fullname.startswith("torch.") or fullname.startswith("torchviz.")) and (
            fullname not in COMPAT_MODULES
        ):
            raise ModuleNotFoundError(
                f"{fullname} is not supported by detachviz (it runs the torch, torch.nn, "
                "torch.nn.functional, torch.optim, torch.autograd and torchviz APIs)",
                name=fullname,
            )
        return None


class _CompatModules:
    """Context manager: swap the compat modules into sys.modules, restore them after."""

    def __enter__(self) -> _CompatModules:
        self._saved = {
            k: v
            for k, v in sys.modules.items()
            if k == "torch" or k.startswith("torch.") or k == "torchviz"
        }
        for k in self._saved:
            del sys.modules[k]
        for alias, real in COMPAT_MODULES.items():
            try:
                sys.modules[alias] = importlib.import_module(real)
            except ImportError:
                continue  # a part not built yet; importing it raises the finder's error
        self._finder = _UnsupportedTorch()
        sys.meta_path.insert(0, self._finder)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.meta_path.remove(self._finder)
        for k in [k for k in sys.modules if k == "torch" or k.startswith("torch.")]:
            del sys.modules[k]
        sys.modules.pop("torchviz", None)
        sys.modules.update(self._saved)


def _make_dot(*args: Any, **kwargs: Any) -> Any:
    """torchviz's make_dot, imported only when a script uses it (it pulls in the renderer)."""
    from detachviz.torchviz import make_dot

    return make_dot(*args, **kwargs)


def _prebound() -> dict[str, Any]:
    torch = sys.modules["torch"]
    names: dict[str, Any] = {"torch": torch, "T": torch, "make_dot": _make_dot}
    for key, module in (("nn", "torch.nn"), ("F", "torch.nn.functional")):
        if module in sys.modules:
            names[key] = sys.modules[module]
    return names


def read_script(path: str | os.PathLike[str]) -> tuple[Path, str]:
    p = Path(path)
    if not p.is_file():
        raise ScriptNotFound(f"no such script: {path}")
    try:
        return p, p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ScriptNotFound(f"cannot read script {path}: {e}") from None


def _trimmed_traceback(exc: BaseException, script: str) -> tuple[str, int | None]:
    """The traceback `python` would print, minus the frames of detachviz itself."""
    te = traceback.TracebackException.from_exception(exc)
    if isinstance(exc, SyntaxError):
        return "".join(te.format_exception_only()), exc.lineno
    frames = [f for f in te.stack if not f.filename.startswith(_PACKAGE_DIR)]
    line = None
    for f in frames:
        if f.filename == script:
            line = f.lineno
    te.stack = traceback.StackSummary.from_list(frames)
    # NOTE: chained exceptions keep their own stacks; trim those too.
    cause = te.__cause__ or te.__context__
    while cause is not None:
        cause.stack = traceback.StackSummary.from_list(
            [f for f in cause.stack if not f.filename.startswith(_PACKAGE_DIR)]
        )
        cause = cause.__cause__ or cause.__context__
    return "".join(te.format()), line


def run_script(
    path: str | os.PathLike[str],
    argv: list[str] | tuple[str, ...] = (),
    *,
    record: bool | None = None,
) -> RunResult:
    """Run a script to completion (or failure) and return what it left.

    `record=None` records the trace only when the script mentions make_dot (which draws
    cuts from it); `render` and `grad` pass True. Never raises for the script's own errors:
    they land in `RunResult.error`/`error_text`. SystemExit is honoured like `python` does.
    """
    p, source = read_script(path)
    filename = str(path)  # as `python SCRIPT` names it in tracebacks
    result = RunResult(path=p)
    if record is None:
        record = "make_dot" in source
    old_argv, old_path = sys.argv, list(sys.path)
    sys.argv = [str(path), *argv]
    sys.path.insert(0, str(p.resolve().parent))  # as `python SCRIPT` does
    try:
        with _CompatModules():
            namespace: dict[str, Any] = {
                "__name__": "__main__",
                "__file__": str(path),
                "__builtins__": __builtins__,
                **_prebound(),
            }
            result.namespace = namespace
            recorder_ctx = trace.recording(filename) if record else None
            if recorder_ctx is not None:
                result.recorder = recorder_ctx.__enter__()
            try:
                code = compile(source, filename, "exec")
                exec(code, namespace)
            except SystemExit as e:
                result.exit_code = _exit_code(e.code)
            except KeyboardInterrupt:
                raise
            except BaseException as e:  # the script's own failure: report, don't crash
                result.exit_code = 1
                result.error = e
                result.error_text, result.error_line = _trimmed_traceback(e, filename)
            finally:
                if recorder_ctx is not None:
                    recorder_ctx.__exit__(None, None, None)
    finally:
        sys.argv = old_argv
        sys.path[:] = old_path
    return result


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def compat_module(name: str) -> ModuleType:
    """The module a script's `import name` gets (for tests and make_dot)."""
    return importlib.import_module(COMPAT_MODULES[name])
