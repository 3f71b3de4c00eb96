"""Runs a user script like `python SCRIPT`, with `import torch` resolving to detachviz.

The runner owns what `python` would set up and tear down: the script's own `__main__`
module (pre-bound `torch`, `T`, `nn`, `F`, `make_dot`, as tutorial snippets assume),
`sys.argv`, `sys.path[0]`, the working directory, the modules imported from the script's
folder, `atexit` handlers, and the `sys.modules` swap that makes `import torch` the engine.
All of it is restored afterwards, so a batch of scripts in one process behaves like one
`python` per script. It also records the trace when asked and turns a script failure into a
traceback trimmed to the user's own frames.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import functools
import importlib
import importlib.machinery
import importlib.util
import io
import os
import signal
import stat
import sys
import tokenize
import traceback
import types
import warnings
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from detachviz import engines
from detachviz.engine import state, trace
from detachviz.errors import RootError, ScriptNotFound
from detachviz.graph.vocab import DIFFERENTIATIONS

__all__ = [
    "COMPAT_MODULES",
    "RootError",
    "RunResult",
    "Script",
    "ScriptNotFound",
    "load_script",
    "pick_roots",
    "run_script",
    "tensor_names",
]

# What `import X` resolves to while a script runs. `torch` is bound when the script starts
# (the pre-bound names need it); every other module is imported when the script first
# imports it (`_TorchModules`), so a script that never says `nn` does not load torch.nn;
# torchviz, which pulls in the renderer and graphviz, loads on first use, so `detachviz run`
# of a plain script never imports them.
COMPAT_MODULES = {
    "torch": "detachviz.torch",
    "torch.autograd": "detachviz.torch.autograd",
    "torch.autograd.forward_ad": "detachviz.engine.forward_ad",
    "torch.autograd.functional": "detachviz.engine.jacobian",
    "torch.autograd.gradcheck": "detachviz.engine.gradcheck",
    "torch.autograd.graph": "detachviz.engine.graph_hooks",
    "torch.func": "detachviz.engine.func",
    "torch.linalg": "detachviz.torch.linalg",
    "torch.nn": "detachviz.nn",
    "torch.nn.functional": "detachviz.nn.functional",
    "torch.nn.init": "detachviz.nn.init",
    "torch.optim": "detachviz.optim",
    "torch.optim.lr_scheduler": "detachviz.optim.lr_scheduler",
    "torch.nn.utils": "detachviz.nn.utils",
    "torch.nn.utils.clip_grad": "detachviz.nn.utils.clip_grad",
    "torch.nn.utils.rnn": "detachviz.nn.utils.rnn",
    "torch.serialization": "detachviz.serialization",
    "torch.utils": "detachviz.utils",
    "torch.utils.data": "detachviz.utils.data",
    "torch.random": "detachviz.torch.random",
    "torch.special": "detachviz.torch.special",  # mathops
}
LAZY_COMPAT_MODULES = {"torchviz": "detachviz.torchviz"}

STDIN = "-"  # the script path that means "read the script from stdin", as python does

_PACKAGE_DIR = str(Path(__file__).resolve().parent)


@functools.cache
def _installed() -> tuple[str, ...]:
    """Where the interpreter's own and installed modules live: never forgotten between
    scripts. Read on first need: sysconfig costs a plain run a few milliseconds."""
    import sysconfig

    keys = ("stdlib", "platstdlib", "purelib", "platlib")
    return tuple(os.path.join(os.path.realpath(sysconfig.get_path(k)), "") for k in keys)


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
    source: str = ""  # the script's text, decoded as python decodes it
    engine: str = engines.DEFAULT_ENGINE  # what `import torch` resolved to (engines.py)
    exited: str = ""  # how the script ended the run early: "sys.exit(3)", "os._exit(0)"

    @property
    def failed(self) -> bool:
        return self.exit_code != 0

    @property
    def lines(self) -> list[str]:
        return self.source.splitlines()


# The run in progress, so that make_dot called inside a script can name its tensors.
CURRENT: RunResult | None = None


class _TorchModules:
    """The meta-path finder of a script run: `import torch.X` gives the engine's module for
    it (COMPAT_MODULES), imported then and not before, and `import torch.fft` (anything we do
    not provide) is a clear error."""

    def find_spec(self, fullname: str, path: object, target: object = None) -> Any:
        real = COMPAT_MODULES.get(fullname)
        if real is not None:
            loader: Any = _Alias(fullname, real)  # a loader by protocol, not importlib.abc's
            return importlib.util.spec_from_loader(fullname, loader)
        if fullname.startswith(("torch.", "torchviz.")):
            raise ModuleNotFoundError(
                f"{fullname} is not supported by detachviz (it runs the torch, torch.nn, "
                "torch.nn.functional, torch.optim, torch.autograd and torchviz APIs)",
                name=fullname,
            )
        return None


class _Alias:
    """The loader of one COMPAT_MODULES alias: the real module itself, left as it is (its
    name and spec stay detachviz's). A real module that is no package (torch.autograd) binds
    its aliased children with it, since the import system looks for those only in packages."""

    def __init__(self, alias: str, real: str) -> None:
        self.alias, self.real = alias, real

    def create_module(self, spec: Any) -> types.ModuleType:
        module = importlib.import_module(self.real)
        self.spec = module.__spec__  # the import system overwrites it; exec_module restores
        if not hasattr(module, "__path__"):
            prefix = self.alias + "."
            for alias, real in COMPAT_MODULES.items():
                if alias.startswith(prefix):
                    sys.modules[alias] = importlib.import_module(real)
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        module.__spec__ = self.spec


def _lazy_module(alias: str, real: str) -> types.ModuleType:
    """A stand-in for `real` under the name `alias` that imports `real` on first attribute."""
    stand_in = types.ModuleType(alias, f"detachviz's {alias} (loads {real} on first use)")

    def load(name: str) -> Any:
        module = importlib.import_module(real)
        if name == "__all__" and not hasattr(module, "__all__"):
            return [n for n in vars(module) if not n.startswith("_")]
        return getattr(module, name)

    stand_in.__getattr__ = load  # type: ignore[method-assign]
    return stand_in


def _is_compat(name: str) -> bool:
    return name in ("torch", "torchviz") or name.startswith(("torch.", "torchviz."))


class _CompatModules:
    """Context manager: swap the compat modules into sys.modules, restore them after.
    With the torch engine, `torch` stays (or becomes) the real one; torchviz is still
    detachviz's, so `make_dot` draws the cuts."""

    def __init__(self, engine: str = engines.DEFAULT_ENGINE) -> None:
        self.engine = engine

    def __enter__(self) -> _CompatModules:
        real_torch = {}
        if self.engine == engines.TORCH:
            from detachviz import torch_engine

            real_torch = torch_engine.real_modules()
        self._saved = {
            k: v for k, v in sys.modules.items() if _is_compat(k) and real_torch.get(k) is not v
        }
        for k in self._saved:
            del sys.modules[k]
        sys.modules.update(real_torch)
        if not real_torch:
            sys.modules["torch"] = importlib.import_module(COMPAT_MODULES["torch"])
        for alias, real in LAZY_COMPAT_MODULES.items():
            sys.modules[alias] = _lazy_module(alias, real)
        self._finder: _TorchModules | None = None
        if not real_torch:
            self._finder = _TorchModules()
            sys.meta_path.insert(0, self._finder)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._finder is None:  # torch engine: real torch (and what it loaded) stays
            for k in [k for k in sys.modules if k == "torchviz" or k.startswith("torchviz.")]:
                del sys.modules[k]
            sys.modules.update(self._saved)
            return
        sys.meta_path.remove(self._finder)
        for k in [k for k in sys.modules if _is_compat(k)]:
            del sys.modules[k]
        sys.modules.update(self._saved)


def _make_dot(*args: Any, **kwargs: Any) -> Any:
    """torchviz's make_dot, loaded only when a script calls it (it pulls in the renderer)."""
    return sys.modules["torchviz"].make_dot(*args, **kwargs)


def prebound(used: Collection[str] | None = None) -> dict[str, Any]:
    """The names a script starts with (`torch`, `T`, `nn`, `F`, `make_dot`); call it inside
    `compat_modules()`. With `used` (the global names a script's code says, `global_names`),
    only `nn` and `F` it uses are bound, so that a script never naming them does not load
    torch.nn."""
    torch = sys.modules["torch"]
    names: dict[str, Any] = {"torch": torch, "T": torch, "make_dot": _make_dot}
    for key, module in (("nn", "torch.nn"), ("F", "torch.nn.functional")):
        if used is None or key in used:
            names[key] = importlib.import_module(module)
    return names


def global_names(code: types.CodeType) -> set[str]:
    """Every global (or attribute) name `code` and the functions and classes in it say."""
    names: set[str] = set()
    stack = [code]
    while stack:
        c = stack.pop()
        names.update(c.co_names)
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return names


def compat_modules(engine: str = engines.DEFAULT_ENGINE) -> _CompatModules:
    """Context manager: `import torch` resolves to the engine (and torchviz to detachviz's)
    until it exits."""
    return _CompatModules(engine)


def recording(engine: str, script: str | None) -> Any:
    """Context manager recording the trace of the chosen engine; gives the Recorder."""
    if engine == engines.TORCH:
        from detachviz import torch_engine

        return torch_engine.recording(script)
    return trace.recording(script)


class Script(NamedTuple):
    """A script to run, located and read the way `python SCRIPT` does it.

    given     the path as the user typed it (tracebacks show it so), or "-" for stdin
    filename  what tracebacks name: as python 3.9+, the path joined to the working folder
              (`/w/./s.py` for `./s.py`; not through symlinks) of the script or of the
              package's `__main__.py`; `<stdin>` for stdin
    code      the raw bytes (python decodes them: BOM, `# -*- coding: ... -*-`)
    main_dir  what python puts first on sys.path: the script's folder ('' for stdin)
    package   True for a folder run through its `__main__.py`
    """

    given: str
    filename: str
    code: bytes
    main_dir: str
    package: bool = False

    @property
    def path(self) -> Path:
        return Path(self.filename)

    @property
    def text(self) -> str:
        """The source as python decodes it (a bad encoding shows up when compiling)."""
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(self.code).readline)
            return self.code.decode(encoding, "replace")
        except (SyntaxError, LookupError):
            return self.code.decode("utf-8", "replace")


def check_script(path: str) -> None:
    """Raise ScriptNotFound unless `path` names something `python` would run (a file, a
    FIFO, a folder with `__main__.py`, or "-" for stdin); reads nothing."""
    if path == STDIN:
        return
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        if isinstance(e, FileNotFoundError):
            raise ScriptNotFound(f"no such script: {path} (check the path)") from None
        raise ScriptNotFound(f"cannot read script {path}: {e.strerror or e}") from None
    if stat.S_ISDIR(mode) and not os.path.isfile(os.path.join(path, "__main__.py")):
        raise ScriptNotFound(f"{path} is a folder without a __main__.py: name a script in it")


def load_script(path: str | os.PathLike[str]) -> Script:
    """Locate and read a script as `python SCRIPT` would, or raise ScriptNotFound."""
    given = os.fspath(path)
    check_script(given)
    if given == STDIN:
        return Script(given, "<stdin>", sys.stdin.buffer.read(), "")
    package = os.path.isdir(given)
    located = os.path.join(given, "__main__.py") if package else given
    filename = os.path.join(os.getcwd(), located)  # as python: joined, not normalised
    try:
        with open(filename, "rb") as f:
            code = f.read()
    except OSError as e:
        raise ScriptNotFound(f"cannot read script {given}: {e.strerror or e}") from None
    # As python: a package folder as given (made absolute), a file's real folder (through
    # symlinks).
    main_dir = os.path.abspath(given) if package else os.path.dirname(os.path.realpath(given))
    return Script(given, filename, code, main_dir, package)


def read_script(path: str | os.PathLike[str]) -> tuple[Path, str]:
    """(path, text) of a script, decoded as python decodes it."""
    script = load_script(path)
    return script.path, script.text


def _main_module(script: Script) -> types.ModuleType:
    """A fresh `__main__` with the attributes `python SCRIPT` gives it."""
    module = types.ModuleType("__main__")
    ns = module.__dict__
    ns["__builtins__"] = builtins
    ns["__cached__"] = None
    if script.given == STDIN:
        ns["__file__"] = "<stdin>"
        ns["__loader__"] = importlib.machinery.BuiltinImporter
        return module
    absolute = script.filename  # already joined to the working folder, as python does
    loader = importlib.machinery.SourceFileLoader("__main__", absolute)
    ns["__file__"] = absolute
    ns["__loader__"] = loader
    if script.package:  # `python pkg` runs pkg/__main__.py as the module __main__
        ns["__spec__"] = importlib.util.spec_from_file_location("__main__", absolute)
        ns["__package__"] = ""
    return module


class _ScriptExit(BaseException):
    """`os._exit(n)` inside a contained run: ends the script, not detachviz."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


@contextlib.contextmanager
def _contained_exit() -> Iterator[None]:
    """While rendering or explaining, a script's `os._exit` ends only that script."""

    def _exit(code: int) -> None:
        raise _ScriptExit(int(code))

    real = os._exit
    os._exit = _exit  # type: ignore[assignment]
    try:
        yield
    finally:
        os._exit = real


@contextlib.contextmanager
def _own_atexit(filename: str, stderr: Callable[[str], object]) -> Iterator[None]:
    """Handlers the script itself registers with `atexit` run when the script ends (as they
    would at the end of its own `python`), not after detachviz has written its output.
    Modules imported meanwhile (logging, multiprocessing) register theirs for real."""
    handlers: list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = []
    real_register, real_unregister = atexit.register, atexit.unregister

    def register(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[..., Any]:
        if sys._getframe(1).f_code.co_filename != filename:
            return real_register(func, *args, **kwargs)
        handlers.append((func, args, kwargs))
        return func

    def unregister(func: Callable[..., Any]) -> None:
        handlers[:] = [h for h in handlers if h[0] != func]
        real_unregister(func)

    atexit.register, atexit.unregister = register, unregister  # type: ignore[assignment]
    try:
        yield
    finally:
        atexit.register, atexit.unregister = real_register, real_unregister
        for func, args, kwargs in reversed(handlers):
            try:
                func(*args, **kwargs)
            except SystemExit:
                pass
            except BaseException as e:  # noqa: BLE001 - python reports these and goes on
                stderr(f"Exception ignored in atexit callback {func!r}:\n")
                stderr("".join(traceback.format_exception(e)))


def _forget_script_modules(before: set[str], main_dir: str) -> None:
    """Drop the modules the script imported from its own folder, so the next script of a
    batch imports its own `helper.py`, as a fresh `python` would."""
    if not main_dir:
        main_dir = os.getcwd()
    prefix = os.path.join(os.path.realpath(main_dir), "")
    for name in [n for n in sys.modules if n not in before]:
        if name == "detachviz" or name.startswith("detachviz.") or _is_compat(name):
            continue
        module = sys.modules[name]
        where = getattr(module, "__file__", None) or ""
        paths = list(getattr(module, "__path__", None) or [])
        places = [os.path.realpath(p) for p in [where, *paths] if p]
        if any(p.startswith(prefix) and not p.startswith(_installed()) for p in places):
            del sys.modules[name]


class _Sink(io.TextIOWrapper):
    """The quiet run's stdout. It has a `.buffer` like the real one, and a script closing it
    does not lose what it printed."""

    def __init__(self) -> None:
        super().__init__(io.BytesIO(), encoding="utf-8", errors="backslashreplace")

    def close(self) -> None:
        self.flush()

    def getvalue(self) -> str:
        with contextlib.suppress(ValueError):
            self.flush()
        buffer = self.buffer
        if not isinstance(buffer, io.BytesIO) or buffer.closed:
            return ""
        return buffer.getvalue().decode("utf-8", "replace")


@contextlib.contextmanager
def _quiet_fd(fd: int, into: list[str]) -> Iterator[None]:
    """Point `fd` at an anonymous file while the script runs, so what gets past sys.stdout
    (`os.write(1, ..)`, `os.system`, C code) cannot mix with `-o -`'s bytes; `into` gets it."""
    try:
        saved = os.dup(fd)
    except OSError:  # fd closed: nothing to protect
        yield
        return
    with _anonymous_file() as caught:
        with contextlib.suppress(ValueError, OSError):
            sys.__stdout__.flush()  # type: ignore[union-attr]
        os.dup2(caught.fileno(), fd)
        try:
            yield
        finally:
            os.dup2(saved, fd)
            os.close(saved)
            caught.seek(0)
            into.append(caught.read().decode("utf-8", "replace"))


def _anonymous_file() -> BinaryIO:
    """A read-write file with no name, gone when closed: a memfd where Linux has them, else
    a temp file (tempfile and the random module cost a short command milliseconds)."""
    with contextlib.suppress(AttributeError, OSError):  # no memfd_create, or refused
        return open(os.memfd_create("detachviz-caught"), "w+b")
    import tempfile

    return tempfile.TemporaryFile()


def _trimmed_traceback(exc: BaseException, script: str) -> tuple[str, int | None]:
    """The traceback `python` would print, minus the frames of detachviz itself."""
    te = traceback.TracebackException.from_exception(exc)
    if isinstance(exc, SyntaxError):
        return "".join(te.format_exception_only()), exc.lineno
    frames = [f for f in te.stack if not f.filename.startswith(_PACKAGE_DIR)]
    torch_engine = sys.modules.get("detachviz.torch_engine")  # loaded only when chosen
    if torch_engine is not None:
        frames = torch_engine.without_dispatch(frames)
    line = None
    for f in frames:
        if f.filename == script:
            line = f.lineno
    te.stack = traceback.StackSummary.from_list(frames)
    # NOTE: chained exceptions keep their own stacks; trim those too.
    cause = te.__cause__ or te.__context__
    while cause is not None:
        kept = [f for f in cause.stack if not f.filename.startswith(_PACKAGE_DIR)]
        if torch_engine is not None:
            kept = torch_engine.without_dispatch(kept)
        cause.stack = traceback.StackSummary.from_list(kept)
        cause = cause.__cause__ or cause.__context__
    return "".join(te.format()), line


def run_script(
    path: str | os.PathLike[str],
    argv: list[str] | tuple[str, ...] = (),
    *,
    record: bool | None = None,
    quiet: bool = False,
    engine: str | None = None,
) -> RunResult:
    """Run a script to completion (or failure) and return what it left.

    `record=None` records the trace only when the script mentions make_dot (which draws
    cuts from it); `render` and `grad` pass True. `quiet` keeps the script's prints off
    stdout (in `RunResult.stdout`), so `-o -` stays pure, and makes `os._exit` end only the
    script. Never raises for the script's own errors: they land in `RunResult.error` /
    `error_text`. SystemExit is honoured like `python` does. `engine` is a name from
    engines.ENGINES (default: $DETACHVIZ_ENGINE, else detachviz). Raises ScriptNotFound,
    UserError.
    """
    chosen = engines.resolve(engine)
    script = load_script(path)
    filename = script.filename  # as `python SCRIPT` names it in tracebacks
    result = RunResult(path=script.path, source=script.text, engine=chosen)
    if record is None:
        record = "make_dot" in result.source
    saved_argv, saved_path, saved_cwd = sys.argv, list(sys.path), os.getcwd()
    saved_main = sys.modules.get("__main__")
    saved_streams = sys.stdout, sys.stderr
    saved_process = _ProcessState.save()
    sys.argv = [script.given if script.given != STDIN else STDIN, *argv]
    sys.path.insert(0, script.main_dir)  # as `python SCRIPT` does
    before = set(sys.modules)
    global CURRENT
    outer = CURRENT
    try:
        with _CompatModules(chosen), contextlib.ExitStack() as run:
            main = _main_module(script)
            namespace = main.__dict__
            result.namespace = namespace
            sys.modules["__main__"] = main  # unittest.main(), pickle and Pool find it here
            if record:
                result.recorder = run.enter_context(recording(chosen, filename))
            state.reset()  # each script starts as in a fresh `python`
            CURRENT = result
            sink = _Sink() if quiet else None
            raw_output: list[str] = []
            try:
                code = compile(script.code, filename, "exec", dont_inherit=True)
                namespace.update(prebound(global_names(code)))
                with contextlib.ExitStack() as quieted:
                    quieted.enter_context(state.float_errors_silenced())
                    if sink is not None:
                        quieted.enter_context(_quiet_fd(1, raw_output))
                        quieted.enter_context(contextlib.redirect_stdout(sink))
                        caught = quieted.enter_context(warnings.catch_warnings(record=True))
                        warnings.simplefilter("default")
                        result.warnings = caught
                        quieted.enter_context(_contained_exit())
                    quieted.enter_context(_own_atexit(filename, _write_stderr))
                    exec(code, namespace)
            except SystemExit as e:
                result.exit_code = _exit_code(e.code)
                if result.exit_code:
                    result.exited = f"sys.exit({e.code!r})"
            except _ScriptExit as e:
                result.exit_code = e.code
                result.exited = f"os._exit({e.code})"
            except KeyboardInterrupt:
                raise
            except BaseException as e:  # the script's own failure: report, don't crash
                result.exit_code = 1
                result.error = e
                result.error_text, result.error_line = _trimmed_traceback(e, filename)
                if result.recorder is not None:
                    result.recorder.saved_behind(e)  # names the failed node, as `.node`
            finally:
                result.stdout = (sink.getvalue() if sink else "") + "".join(raw_output)
    finally:
        CURRENT = outer
        sys.argv = saved_argv
        sys.path[:] = saved_path
        _restore_cwd(saved_cwd)
        saved_process.restore()
        sys.stdout, sys.stderr = saved_streams
        if saved_main is not None:
            sys.modules["__main__"] = saved_main
        _forget_script_modules(before, script.main_dir)
    return result


_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@dataclass
class _ProcessState:
    """Process-wide settings a script may change that a fresh `python` would not inherit
    from the previous script of a batch: environment, umask, signal handlers, recursion
    limit."""

    environ: dict[str, str]
    umask: int
    handlers: list[Any]
    recursion_limit: int

    @classmethod
    def save(cls) -> _ProcessState:
        umask = os.umask(0o022)
        os.umask(umask)
        return cls(
            dict(os.environ),
            umask,
            [signal.getsignal(s) for s in _SIGNALS],
            sys.getrecursionlimit(),
        )

    def restore(self) -> None:
        if dict(os.environ) != self.environ:
            os.environ.clear()
            os.environ.update(self.environ)
        os.umask(self.umask)
        sys.setrecursionlimit(self.recursion_limit)
        with contextlib.suppress(ValueError, TypeError):  # not the main thread; a C handler
            for sig, handler in zip(_SIGNALS, self.handlers):
                if signal.getsignal(sig) is not handler:
                    signal.signal(sig, handler)


def _write_stderr(text: str) -> None:
    with contextlib.suppress(ValueError, OSError):  # a script may have closed stderr
        sys.stderr.write(text)


def _restore_cwd(cwd: str) -> None:
    """Outputs and later scripts are resolved against the invocation's folder, whatever
    `os.chdir` the script did."""
    with contextlib.suppress(OSError):
        if os.getcwd() == cwd:
            return
    os.chdir(cwd)


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _is_tensor(value: object) -> bool:
    from detachviz.engine.tensor import Tensor

    if isinstance(value, Tensor):
        return True
    torch_engine = sys.modules.get("detachviz.torch_engine")  # loaded only when chosen
    return torch_engine is not None and torch_engine.is_tensor(value)


def named_tensors(namespace: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The script's tensors under their names, each once: globals in definition order (so in
    `q = p` the tensor is `p`), then nn parameters as `module.param`."""
    out: list[tuple[str, Any]] = []
    seen: set[int] = set()

    def add(name: str, tensor: Any) -> None:
        if id(tensor) not in seen:
            seen.add(id(tensor))
            out.append((name, tensor))

    for var, value in namespace.items():
        if var.startswith("__") or isinstance(value, types.ModuleType):
            continue  # the pre-bound torch/T/nn/F, unless the script rebound the name
        if _is_tensor(value):
            add(var, value)
        elif callable(getattr(value, "named_parameters", None)) and not isinstance(value, type):
            try:
                for pname, param in value.named_parameters():
                    add(f"{var}.{pname}", param)
            except Exception:  # noqa: BLE001 - a user object that merely looks like a module
                continue
    return out


def tensor_names(namespace: Mapping[str, Any]) -> dict[int, str]:
    """id(tensor) -> the script's name for it (see named_tensors)."""
    return {id(t): name for name, t in named_tensors(namespace)}


def backward_roots(recorder: trace.Recorder | None) -> list[Any]:
    """Tensors the script called backward() / autograd.grad() on, first call first."""
    if recorder is None:
        return []
    seen: list[Any] = []
    for rec in recorder.records:
        if rec.op in DIFFERENTIATIONS:
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


def _root_expression(text: str, namespace: dict[str, Any], named: list[tuple[str, Any]]) -> Any:
    """`--root losses[0]`, `--root model.fc.weight`: an expression evaluated in the script's
    final namespace, which must give a tensor."""
    known = ", ".join(n for n, _ in named) or "none"
    try:
        code = compile(text, "<--root>", "eval")
    except SyntaxError:
        raise RootError(
            f"--root {text!r} is neither a tensor's name nor an expression (tensors: {known})"
        ) from None
    try:
        value = eval(code, dict(namespace))  # noqa: S307 - the user's own expression
    except NameError:
        raise RootError(
            f"--root {text!r} names no tensor in the script (tensors: {known})"
        ) from None
    except Exception as e:  # noqa: BLE001 - any failure of the user's expression is theirs
        raise RootError(
            f"--root {text!r} failed in the script's namespace: {type(e).__name__}: {e}"
        ) from None
    if not _is_tensor(value):
        raise RootError(f"--root {text!r} is a {type(value).__name__}, not a tensor")
    return value


def pick_roots(
    result: RunResult, requested: list[str] | tuple[str, ...] = ()
) -> list[tuple[str | None, Any]]:
    """The tensors to draw: `--root` names or expressions (`losses[0]`, `model.fc.weight`);
    else what backward() ran on; else final tensors."""
    named = named_tensors(result.namespace)
    if requested:
        by_name = dict(named)
        by_name.update((k, v) for k, v in result.namespace.items() if _is_tensor(v))
        roots: list[tuple[str | None, Any]] = []
        for name in requested:
            if name in by_name:
                roots.append((name, by_name[name]))
            else:
                roots.append((name, _root_expression(name, result.namespace, named)))
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
