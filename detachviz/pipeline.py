"""Scripts to image files: run, capture, draw, then write atomically (or check freshness).

The CLI calls `render_many`; everything here is plain Python so it is testable without
click, and picklable so batches run in worker processes.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from detachviz.graph.model import Graph

FORMATS = ("svg", "png", "jpg", "pdf", "dot", "json", "html")
RANKDIRS = ("TB", "LR", "BT", "RL")
ALIASES = {"jpeg": "jpg", "gv": "dot"}


class PipelineError(Exception):
    """A user-facing problem with the request (bad format, output path, ...)."""


@dataclass(frozen=True)
class RenderOptions:
    fmt: str | None = None  # None: from the -o suffix, else svg
    roots: tuple[str, ...] = ()
    rankdir: str = "TB"
    legend: bool = False
    show_saved: bool = False
    show_attrs: bool = False
    expand: bool = False
    renderer: str | None = None
    allow_errors: bool = False  # a script that raises still counts as rendered


@dataclass
class Outcome:
    """What happened to one script. status: written | unchanged | failed | stale | current."""

    script: str
    output: str
    status: str
    message: str = ""
    data: bytes | None = field(default=None, repr=False)  # for `-o -`

    @property
    def ok(self) -> bool:
        return self.status in ("written", "unchanged", "current")


def normalise_format(fmt: str) -> str:
    fmt = ALIASES.get(fmt.lower(), fmt.lower())
    if fmt not in FORMATS:
        raise PipelineError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    return fmt


def resolve_format(opts: RenderOptions, out: str | None) -> str:
    if opts.fmt:
        return normalise_format(opts.fmt)
    if out and out != "-" and Path(out).suffix:
        return normalise_format(Path(out).suffix[1:])
    return "svg"


def output_path(script: str, fmt: str, out: str | None, out_dir: str | None) -> str:
    """Where the image goes: -o as given; else next to the script (or in --out-dir)."""
    if out:
        return out
    stem = Path(script).with_suffix(f".{fmt}").name
    return str(Path(out_dir) / stem if out_dir else Path(script).with_suffix(f".{fmt}"))


def build(script: str, opts: RenderOptions, fmt: str) -> tuple[bytes, str]:
    """Run the script and draw it. Returns (bytes, error message or "")."""
    from detachviz.graph.capture import Options, capture
    from detachviz.runner import RootError, pick_roots, run_script, tensor_names

    result = run_script(script, record=True, quiet=True)
    error: dict[str, object] | None = None
    if result.failed and result.error is not None:
        lines = result.error_text.strip().splitlines()
        last = lines[-1] if lines else str(result.error)
        error = {"message": last, "line": result.error_line}
    where = f" at line {error['line']}" if error and error["line"] else ""
    try:
        roots = pick_roots(result, opts.roots)
    except RootError:
        if error is None:
            raise
        raise RootError(
            f"script failed{where} before any tensor to draw: {error['message']}"
        ) from None
    graph = capture(
        roots,
        result.recorder,
        tensor_names(result.namespace),
        Options(show_saved=opts.show_saved, show_attrs=opts.show_attrs),
        error=error,
        failed_fn=getattr(result.error, "node", None),
    )
    message = ""
    if error is not None:
        message = f"script failed{where}: {error['message']} (graph drawn up to the failure)"
    if fmt == "json":
        return graph.to_json().encode(), message
    if fmt == "html":
        from detachviz.render.html import render_html

        page = render_html(
            graph,
            title=Path(script).name,
            source=result.path.read_text(encoding="utf-8").splitlines(),
            details=tensor_details(graph, result.namespace),
            rankdir=opts.rankdir,
            legend=opts.legend,
            show_attrs=opts.show_attrs,
            show_saved=opts.show_saved,
            expand=opts.expand,
            renderer=opts.renderer,
        )
        return page.encode("utf-8"), message
    from detachviz.render import draw

    data = draw(
        graph,
        fmt=fmt,
        rankdir=opts.rankdir,
        legend=opts.legend,
        show_attrs=opts.show_attrs,
        show_saved=opts.show_saved,
        expand=opts.expand,
        renderer=opts.renderer,
    )
    return data, message


def tensor_details(graph: Graph, namespace: dict[str, Any]) -> dict[str, dict[str, str]]:
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

    A temp file in the same folder, then rename: a failure never leaves half a file,
    and an existing image stays intact.
    """
    target = Path(path)
    try:
        if target.is_file() and target.read_bytes() == data:
            return False
    except OSError:
        pass
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True


@dataclass(frozen=True)
class Job:
    script: str
    out: str | None
    out_dir: str | None
    check: bool
    opts: RenderOptions


def render_one(job: Job) -> Outcome:
    """Render (or check) one script; never raises for the script's or the user's errors."""
    from detachviz.render.backend import RenderError
    from detachviz.runner import RootError, ScriptNotFound

    fmt = resolve_format(job.opts, job.out)
    target = output_path(job.script, fmt, job.out, job.out_dir)
    try:
        data, failure = build(job.script, job.opts, fmt)
    except (ScriptNotFound, RootError, RenderError, PipelineError) as e:
        return Outcome(job.script, target, "failed", str(e))
    failed = bool(failure) and not job.opts.allow_errors
    if job.check:
        try:
            current = Path(target).read_bytes()
        except OSError:
            return Outcome(job.script, target, "stale", "missing")
        if current != data:
            return Outcome(job.script, target, "stale", "out of date")
        return Outcome(job.script, target, "failed" if failed else "current", failure)
    if target == "-":
        return Outcome(job.script, target, "failed" if failed else "written", failure, data)
    try:
        written = write_atomic(target, data)
    except OSError as e:
        reason = e.strerror or str(e)
        return Outcome(job.script, target, "failed", f"cannot write {target}: {reason}")
    status = "written" if written else "unchanged"
    return Outcome(job.script, target, "failed" if failed else status, failure)


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
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs))) as pool:
        yield from pool.map(render_one, jobs)


def jobs_for(
    scripts: list[str],
    out: str | None,
    out_dir: str | None,
    check: bool,
    opts: RenderOptions,
) -> list[Job]:
    """Validate the request once, before any script runs."""
    missing = [s for s in scripts if not Path(s).is_file()]
    if missing:
        raise PipelineError(f"no such script: {', '.join(missing)} (check the path)")
    if out and len(scripts) > 1:
        raise PipelineError("-o names one output file; with several scripts use --out-dir")
    if out == "-" and check:
        raise PipelineError("--check compares files on disk; it cannot be used with -o -")
    fmt = resolve_format(opts, out)
    opts = replace(opts, fmt=fmt)
    if opts.rankdir not in RANKDIRS:
        raise PipelineError(f"unknown --rankdir {opts.rankdir!r}: use one of {', '.join(RANKDIRS)}")
    jobs = [Job(s, out, out_dir, check, opts) for s in scripts]
    targets: dict[str, str] = {}
    for job in jobs:
        target = output_path(job.script, fmt, out, out_dir)
        key = os.path.normpath(os.path.abspath(target)) if target != "-" else target
        if key in targets and targets[key] != job.script:
            raise PipelineError(
                f"{targets[key]} and {job.script} would both write {target}: "
                "render them into different --out-dir folders"
            )
        targets[key] = job.script
    return jobs
