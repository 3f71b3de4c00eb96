"""Runs a user script like `python SCRIPT`, with `import torch` resolving to detachviz.

The runner owns the sys.modules swap (restored afterwards), the script's globals (pre-bound
`torch`, `T`, `nn`, `F`, `make_dot`, as tutorial snippets assume), the optional trace
recording, and turning a script failure into a traceback trimmed to the user's own frames.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import io
import os
import sys
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from detachviz.engine import session, trace

# What `import X` resolves to while a script runs. Modules load lazily, in this order.
COMPAT_MODULES = {
    "torch": "detachviz.torch",
    "torch.autograd": "detachviz.torch.autograd",
    "torch.autograd.forward_ad": "detachviz.engine.forward_ad",
    "torch.nn": "detachviz.nn",
    "torch.nn.functional": "detachviz.nn.functional",
    "torch.nn.init": "detachviz.nn.init",
    "torch.optim": "detachviz.optim",
    "torch.random": "detachviz.torch.random",
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
    stdout: str = ""  # what the script printed, when run quietly
    warnings: list[Any] = field(default_factory=list)  # what it warned, when run quietly

    @property
    def failed(self) -> bool:
        return self.exit_code != 0


# The run in progress, so that make_dot called inside a script can name its tensors.
CURRENT: RunResult | None = None


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
    quiet: bool = False,
) -> RunResult:
    """Run a script to completion (or failure) and return what it left.

    `record=None` records the trace only when the script mentions make_dot (which draws
    cuts from it); `render` and `grad` pass True. `quiet` keeps the script's prints off
    stdout (in `RunResult.stdout`), so `-o -` stays pure. Never raises for the script's own errors:
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
            session.reset()  # each script starts as in a fresh `python`
            global CURRENT
            outer, CURRENT = CURRENT, result
            sink = io.StringIO() if quiet else None
            try:
                code = compile(source, filename, "exec")
                with contextlib.ExitStack() as quieted:
                    quieted.enter_context(session.float_errors_silenced())
                    if sink is not None:
                        quieted.enter_context(contextlib.redirect_stdout(sink))
                        caught = quieted.enter_context(warnings.catch_warnings(record=True))
                        warnings.simplefilter("default")
                        result.warnings = caught
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
                CURRENT = outer
                result.stdout = sink.getvalue() if sink else ""
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


class RootError(Exception):
    """No tensor to draw, or a `--root` name that names no tensor."""


def _is_tensor(value: object) -> bool:
    from detachviz.engine.tensor import Tensor

    return isinstance(value, Tensor)


def named_tensors(namespace: dict[str, Any]) -> list[tuple[str, Any]]:
    """The script's tensors under their names, each once: globals in definition order (so in
    `q = p` the tensor is `p`), then nn parameters as `module.param`."""
    out: list[tuple[str, Any]] = []
    seen: set[int] = set()

    def add(name: str, tensor: Any) -> None:
        if id(tensor) not in seen:
            seen.add(id(tensor))
            out.append((name, tensor))

    for var, value in namespace.items():
        if var.startswith("__") or var in ("T", "torch", "nn", "F"):
            continue
        if _is_tensor(value):
            add(var, value)
        elif callable(getattr(value, "named_parameters", None)) and not isinstance(value, type):
            try:
                for pname, param in value.named_parameters():
                    add(f"{var}.{pname}", param)
            except Exception:  # noqa: BLE001 - a user object that merely looks like a module
                continue
    return out


def tensor_names(namespace: dict[str, Any]) -> dict[int, str]:
    """id(tensor) -> the script's name for it (see named_tensors)."""
    return {id(t): name for name, t in named_tensors(namespace)}


def backward_roots(recorder: trace.Recorder | None) -> list[Any]:
    """Tensors the script called backward() / autograd.grad() on, first call first."""
    if recorder is None:
        return []
    seen: list[Any] = []
    for rec in recorder.records:
        if rec.op in ("backward", "autograd.grad"):
            for ref in rec.inputs:
                if not any(ref.tensor is s for s in seen):
                    seen.append(ref.tensor)
    return seen


def differentiated(result: RunResult) -> list[Any]:
    """The roots a script differentiated, as a person means them: those it still names
    (`d_loss`, `g_loss`), or else the last one. A training loop calls backward() on a new
    `loss` each step; only the last is the script's `loss`, and drawing every step's graph
    would repeat the model once per step."""
    called = backward_roots(result.recorder)
    names = tensor_names(result.namespace)
    named = [t for t in called if id(t) in names]
    return named or called[-1:]


def final_tensors(namespace: dict[str, Any]) -> list[tuple[str, Any]]:
    """The script's named tensors that require grad and feed no other named tensor's graph."""
    named = [(k, v) for k, v in namespace.items() if not k.startswith("__") and _is_tensor(v)]
    with_fn = [(k, v) for k, v in named if v.grad_fn is not None]
    inner: set[int] = set()
    for _, t in with_fn:
        stack = [c for c, _ in t.grad_fn.next_functions if c is not None]
        while stack:
            fn = stack.pop()
            if id(fn) in inner:
                continue
            inner.add(id(fn))
            stack.extend(c for c, _ in fn.next_functions if c is not None)
    seen: set[int] = set()
    out = []
    for k, v in with_fn:
        if id(v.grad_fn) not in inner and id(v) not in seen:
            seen.add(id(v))
            out.append((k, v))
    return out


def pick_roots(
    result: RunResult, requested: list[str] | tuple[str, ...] = ()
) -> list[tuple[str | None, Any]]:
    """The tensors to draw: `--root` names; else what backward() ran on; else final tensors."""
    named = named_tensors(result.namespace)
    if requested:
        by_name = dict(named)
        by_name.update((k, v) for k, v in result.namespace.items() if _is_tensor(v))
        roots: list[tuple[str | None, Any]] = []
        for name in requested:
            if name not in by_name:
                known = ", ".join(n for n, _ in named) or "none"
                raise RootError(f"--root {name!r} names no tensor in the script (tensors: {known})")
            roots.append((name, by_name[name]))
        return roots
    called = differentiated(result)
    if called:
        names = {id(t): n for n, t in named}
        return [(names.get(id(t)), t) for t in called]
    finals = final_tensors(result.namespace)
    if not finals:
        raise RootError(
            "no tensor to draw: the script has no tensor that requires grad "
            "(call backward() on a result, or name one with --root)"
        )
    return [(name, tensor) for name, tensor in finals]
