"""Scripts to image files: run, capture, draw, then write safely (or check freshness).

The CLI builds a `Request` and calls `jobs_for` (every check on the request happens there,
before any script runs) and `render_many`. Everything here is plain Python, testable
without click, and picklable so batches run in worker processes.

Writing never damages a file: a regular file is replaced atomically (temp file beside it,
then a rename; an existing image stays intact until the new one is complete), keeping its
mode (a new file gets 0666 & ~umask, as `open` would give it); a device or FIFO is opened
and written, never replaced; an input script is never an output.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from detachviz.errors import DetachvizError, UserError
from detachviz.render.options import (
    DEFAULT_FORMAT,
    DEFAULT_VIEW,
    FORMAT_NAMES,
    DrawOptions,
    HtmlView,
    find_format,
)

if TYPE_CHECKING:
    from detachviz.graph.model import Graph

STDOUT = "-"
# Spellings of "this process's stdout" that must not be opened as files: writing there
# through a second file object would interleave with, or truncate, what `-o -` writes.
STDOUT_PATHS = ("/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")

# Status of one script's image: the words the CLI prints.
WRITTEN, UNCHANGED, CURRENT, STALE, FAILED = "written", "unchanged", "current", "stale", "failed"
OK_STATUSES = (WRITTEN, UNCHANGED, CURRENT)


@dataclass(frozen=True)
class Request:
    """What to draw and how, the same for every script of a batch."""

    fmt: str | None = None  # None: from the -o suffix, else svg
    roots: tuple[str, ...] = ()
    allow_errors: bool = False  # a script that fails still counts as rendered
    check: bool = False  # compare with the file on disk, write nothing
    draw: DrawOptions = field(default_factory=DrawOptions)
    engine: str | None = None  # a name from engines.ENGINES; None: $DETACHVIZ_ENGINE or default


DEFAULT_REQUEST = Request()


@dataclass
class Outcome:
    """What happened to one script. status: one of WRITTEN ... FAILED."""

    script: str
    output: str
    status: str
    message: str = ""
    data: bytes | None = field(default=None, repr=False)  # for `-o -`

    @property
    def ok(self) -> bool:
        return self.status in OK_STATUSES


def normalise_format(fmt: str) -> str:
    found = find_format(fmt)
    if found is None:
        raise UserError(f"unknown format {fmt!r}: use one of {', '.join(FORMAT_NAMES)}")
    return found.name


def resolve_format(fmt: str | None, out: str | None) -> str:
    """The format: -f; else -o's suffix; else svg. A suffix naming another format than -f
    is a usage error (`-o g.png -f svg` would put SVG bytes in a .png)."""
    suffix = Path(out).suffix[1:] if out and out != STDOUT else ""
    if fmt:
        chosen = normalise_format(fmt)
        implied = find_format(suffix) if suffix else None
        if implied is not None and implied.name != chosen:
            raise UserError(
                f"-o {out} names a .{suffix} file but -f asks for {chosen}: "
                f"drop -f, or name the output .{chosen}"
            )
        return chosen
    if suffix:
        return normalise_format(suffix)
    return DEFAULT_FORMAT


def output_path(
    script: str, fmt: str, out: str | None, out_dir: str | None, mirror: bool = False
) -> str:
    """Where the image goes: -o as given; else next to the script, or in --out-dir: as
    DIR/<stem>.<fmt>, or with `mirror` under the script's own folder (relative to the
    current one) inside DIR, so same-named scripts in different folders never collide,
    however pre-commit splits them into batches."""
    if out:
        return STDOUT if out in STDOUT_PATHS else out
    base = Path(script.rstrip("/") if script != STDOUT else "stdin")
    stem = base.with_suffix(f".{fmt}").name if base.suffix else f"{base.name}.{fmt}"
    if not out_dir:
        return str(base.with_name(stem))
    if not mirror:
        return str(Path(out_dir) / stem)
    folder = os.path.relpath(os.path.abspath(base.parent))
    if folder == os.pardir or folder.startswith(os.pardir + os.sep):
        raise UserError(
            f"--mirror keeps each script's folder under --out-dir, but {script} is outside "
            "the current folder: run from a folder that contains it"
        )
    return str(Path(out_dir) / folder / stem)


def build(script: str, request: Request, fmt: str) -> tuple[bytes, str]:
    """Run the script and draw it. Returns (bytes, failure message or "")."""
    from detachviz.errors import RootError
    from detachviz.graph.capture import Options, capture
    from detachviz.progress import report
    from detachviz.runner import pick_roots, run_script, tensor_names

    report(f"running {script}")
    result = run_script(script, record=True, quiet=True, engine=request.engine)
    error: dict[str, object] | None = None
    if result.failed and result.error is not None:
        lines = result.error_text.strip().splitlines()
        last = lines[-1] if lines else str(result.error)
        error = {"message": last, "line": result.error_line}
    elif result.failed:
        error = {"message": f"it called {result.exited}", "line": None}
    where = f" at line {error['line']}" if error and error["line"] else ""
    try:
        roots = pick_roots(result, request.roots)
    except RootError:
        if error is None:
            raise
        raise RootError(
            f"script failed{where} before any tensor to draw: {error['message']}"
        ) from None
    if error is not None and not request.allow_errors:
        return b"", f"script failed{where}: {error['message']}"  # nothing is drawn: no image
    report(f"capturing the graph of {script}")
    graph = capture(
        roots,
        result.recorder,
        tensor_names(result.namespace),
        Options(show_saved=request.draw.show_saved, show_attrs=request.draw.show_attrs),
        error=error,
        failed_fn=getattr(result.error, "node", None),
    )
    message = ""
    if error is not None:
        message = f"script failed{where}: {error['message']}"
    from detachviz.render import draw

    report(f"drawing {len(graph.nodes):,} nodes as {fmt}")
    view = DEFAULT_VIEW
    if fmt == "html":
        view = HtmlView(
            title=Path(script).name if script != STDOUT else "stdin",
            source=result.lines,
            details=tensor_details(graph, result.namespace),
        )
    return draw(graph, fmt, request.draw, view), message


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


TEMP_PREFIX = ".dvz-"
TEMP_SUFFIX = ".tmp"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_orphans(folder: Path) -> None:
    """Remove temp files that a killed (kill -9) detachviz left in `folder`: their name
    carries the writer's pid, and that process is gone."""
    with contextlib.suppress(OSError):
        for name in os.listdir(folder):
            if not (name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX)):
                continue
            pid = name[len(TEMP_PREFIX) :].split("-", 1)[0]
            if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
                with contextlib.suppress(OSError):
                    os.unlink(folder / name)


@contextlib.contextmanager
def _temp_beside(target: Path) -> Iterator[tuple[int, Path]]:
    """A new temp file in target's folder (same file system, so the rename is atomic),
    removed again unless it was renamed away — on an error, Ctrl-C or SIGTERM alike.
    Its name is short, so a target whose own name is NAME_MAX long still gets one."""
    _remove_orphans(target.parent)
    while True:
        name = f"{TEMP_PREFIX}{os.getpid()}-{os.urandom(4).hex()}{TEMP_SUFFIX}"
        tmp = target.with_name(name)
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            break
        except FileExistsError:
            continue
    try:
        yield fd, tmp
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def tensor_details(graph: Graph, namespace: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """Per named node of `graph`, what the html view's tooltip adds: dtype and grad."""
    from detachviz.graph.explain import grad_summary
    from detachviz.runner import named_tensors

    tensors = dict(named_tensors(namespace))
    out: dict[str, dict[str, str]] = {}
    for node in graph.nodes:
        t = tensors.get(node.name) if node.name else None
        if t is None:
            continue
        if t.is_leaf or t.retains_grad:
            summary = grad_summary(t.grad)
            if summary is None:
                grad = "None"
            elif "values" in summary:  # a small tensor: its values say it all
                grad = str(summary["values"])
            else:
                grad = ", ".join(f"{k}={v}" for k, v in summary.items() if k != "shape")
        else:
            grad = "not kept (not a leaf; retain_grad() keeps it)"
        out[node.id] = {
            "dtype": str(t.dtype),
            "requires_grad": str(bool(t.requires_grad)),
            "grad": grad or "(empty)",
        }
    return out


def write_atomic(path: str, data: bytes) -> bool:
    """Write `data` to `path` unless it already holds exactly that. True if written.

    A regular (or new) file: a temp file beside it, then a rename — a failure never leaves
    half a file, an existing one stays intact, its mode is kept, and a symlink to it stays
    a symlink. Anything else (a
    device, a FIFO): opened and written in place, never replaced.
    """
    # Through a symlink, the file it names is the one rewritten (the link stays a link).
    target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    try:
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    if info is not None and not stat.S_ISREG(info.st_mode):
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(21, "is a directory", path)
        with open(target, "wb") as f:  # /dev/null, a FIFO, a tty: write, never rename
            f.write(data)
        return True
    if info is not None:
        with contextlib.suppress(OSError):
            if info.st_size == len(data) and target.read_bytes() == data:
                return False
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = stat.S_IMODE(info.st_mode) if info is not None else 0o666 & ~_umask()
    with _temp_beside(target) as (fd, tmp):
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fchmod(fd, mode)
        os.replace(tmp, target)
    return True


DRAWN = " (graph drawn up to the failure)"
NOT_DRAWN = " (no image written: --allow-errors draws the graph up to the failure)"


class Job(NamedTuple):
    script: str
    target: str  # the output file, or "-" for stdout
    fmt: str
    request: Request


def render_one(job: Job) -> Outcome:
    """Render (or check) one script; never raises for the script's or the user's errors."""
    try:
        data, failure = build(job.script, job.request, job.fmt)
    except DetachvizError as e:
        return Outcome(job.script, job.target, FAILED, str(e))
    if failure and not job.request.allow_errors:  # build drew nothing: no image to write
        return Outcome(job.script, job.target, FAILED, failure + NOT_DRAWN)
    if failure:
        failure += DRAWN
    if job.request.check:
        try:
            current = Path(job.target).read_bytes()
        except OSError:
            return Outcome(job.script, job.target, STALE, "missing")
        if current != data:
            return Outcome(job.script, job.target, STALE, "out of date")
        return Outcome(job.script, job.target, CURRENT, failure)
    if job.target == STDOUT:
        return Outcome(job.script, job.target, WRITTEN, failure, data)
    try:
        written = write_atomic(job.target, data)
    except OSError as e:
        reason = e.strerror or str(e)
        return Outcome(job.script, job.target, FAILED, f"cannot write {job.target}: {reason}")
    return Outcome(job.script, job.target, WRITTEN if written else UNCHANGED, failure)


def render_many(
    jobs: list[Job], workers: int = 1, on_done: Callable[[Outcome], None] | None = None
) -> list[Outcome]:
    """Render jobs, in worker processes when workers > 1, results in the jobs' order."""
    results: list[Outcome] = []
    for outcome in _iterate(jobs, workers):
        if on_done is not None:
            on_done(outcome)
        results.append(outcome)
    return results


def _iterate(jobs: list[Job], workers: int) -> Iterator[Outcome]:
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            yield render_one(job)
        return
    from detachviz.workers import parallel

    yield from parallel(render_one, jobs, min(workers, len(jobs)), on_broken=_worker_died)


def _worker_died(job: Job, error: BaseException) -> Outcome:
    return Outcome(job.script, job.target, FAILED, "the script ended its worker process")


def _same_file(a: str, b: str) -> bool:
    """a and b name one file (through symlinks, `..`, hard links)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def jobs_for(
    scripts: list[str],
    *,
    out: str | None = None,
    out_dir: str | None = None,
    mirror: bool = False,
    request: Request = DEFAULT_REQUEST,
) -> list[Job]:
    """Validate the request once, before any script runs (UserError otherwise)."""
    from detachviz import engines
    from detachviz.runner import STDIN, check_script

    engines.require(request.engine)
    for s in scripts:
        check_script(s)
    if scripts.count(STDIN) > 1:
        raise UserError("'-' (the script on stdin) can be given once")
    if out and len(scripts) > 1:
        raise UserError("-o names one output file; with several scripts use --out-dir")
    if mirror and not out_dir:
        raise UserError("--mirror arranges images under --out-dir: give --out-dir too")
    fmt = resolve_format(request.fmt, out)
    if STDIN in scripts and not out and not out_dir:
        out = STDOUT  # a script read from stdin has no folder to put its image beside
    if out and output_path("", fmt, out, None) == STDOUT and request.check:
        raise UserError("--check compares files on disk; it cannot be used with -o -")
    jobs = [Job(s, output_path(s, fmt, out, out_dir, mirror), fmt, request) for s in scripts]
    targets: dict[str, str] = {}
    for job in jobs:
        if job.target == STDOUT:
            continue
        for s in scripts:
            if s != STDIN and _same_file(job.target, s):
                raise UserError(
                    f"{job.target} is an input script: refusing to write an image over it "
                    "(name another output with -o or --out-dir)"
                )
        key = os.path.normpath(os.path.abspath(job.target))
        if key in targets and targets[key] != job.script:
            raise UserError(
                f"{targets[key]} and {job.script} would both write {job.target}: "
                "add --mirror to keep their folders apart under --out-dir"
            )
        targets[key] = job.script
    return jobs
