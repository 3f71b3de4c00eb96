"""The command line: thin click commands; the only module that imports click and rich.

Each command body orchestrates; decisions live in runner, pipeline and graph.explain.
Exit codes: 0 ok, 1 script/render failure or stale images, 2 usage, 3 internal, 130 interrupt.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

import click

from detachviz import __version__, engines, markup
from detachviz.errors import (
    BUG_HINT,
    EXIT_FAILED,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    DetachvizError,
    OutputError,
    UserError,
    raise_terminated,
)
from detachviz.render import options as drawing


def _console(stderr: bool = False, wide: bool = False) -> Any:
    from rich.console import Console

    console = Console(stderr=stderr, highlight=False, soft_wrap=not wide)
    if wide and not console.is_terminal:
        console.width = 120  # files and pipes: room for the table's "why" column
    return console


class _PlainConsole:
    """Status lines for a stderr that is no terminal (pipes, CI, captured output): rich's
    markup written as the plain text rich would write, without loading rich's console
    (a third of the start-up of `detachviz render`)."""

    is_terminal = False

    def print(self, text: str) -> None:
        sys.stderr.write(markup.plain(text) + "\n")
        sys.stderr.flush()


def _status_console() -> Any:
    """The console for one-line status messages on stderr."""
    forced = any(os.environ.get(k) for k in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"))
    tty = sys.stderr is not None and hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
    return _console(stderr=True) if tty or forced else _PlainConsole()


class _Status:
    """What a long command is doing, as a spinner on stderr: shown only on a terminal and
    only once the command has run for DELAY seconds (never in pipes, CI or captured
    output). The layers below say what they do through `progress.report`."""

    DELAY = 1.0

    def __init__(self, console: Any = None) -> None:
        self.console = console or _status_console()
        self.text = "working"
        self.status: Any = None
        self.timer: Any = None

    def __enter__(self) -> _Status:
        from detachviz import progress

        if self.console.is_terminal:
            import threading

            self.listening = progress.listening(self.update)
            self.listening.__enter__()
            self.timer = threading.Timer(self.DELAY, self.show)
            self.timer.daemon = True
            self.timer.start()
        return self

    def update(self, text: str) -> None:
        self.text = text
        if self.status is not None:
            self.status.update(_one_line(text))

    def show(self) -> None:
        self.status = self.console.status(_one_line(self.text))
        self.status.start()

    def __exit__(self, *exc: object) -> None:
        if self.timer is None:
            return
        self.timer.cancel()
        self.timer.join()
        if self.status is not None:
            self.status.stop()
        self.listening.__exit__(None, None, None)


def _one_line(text: str) -> str:
    """User text for a status line: rich markup escaped, control characters (a terminal
    escape in a file name or an error message) and line breaks shown as escapes."""
    from detachviz.render.quoting import visible

    return markup.escape(visible(text).replace("\r", "\\r").replace("\n", "\\n"))


def _shown(text: str) -> str:
    """User text for rich output: markup escaped, control characters shown as escapes."""
    from detachviz.render.quoting import visible

    return markup.escape(visible(text))


def _error(message: str) -> None:
    with contextlib.suppress(ValueError, OSError):  # stderr itself may be gone
        _status_console().print(f"[bold red]error:[/] {_one_line(message)}")


def exit_code_for(error: BaseException) -> tuple[int, str]:
    """The one place an exception becomes an exit code and a one-line message."""
    if isinstance(error, KeyboardInterrupt):  # Ctrl-C, or SIGTERM as `errors.Terminated`
        return getattr(error, "exit_code", EXIT_INTERRUPTED), str(error) or "interrupted"
    if isinstance(error, DetachvizError):
        if isinstance(error.__cause__, BrokenPipeError):
            _quiet_broken_stdout()
        return error.exit_code, str(error)
    if isinstance(error, BrokenPipeError):  # `detachviz grad s.py | head`: the reader left
        _quiet_broken_stdout()
        return EXIT_FAILED, "stdout was closed before everything was written"
    return EXIT_INTERNAL, f"internal error: {type(error).__name__}: {error} ({BUG_HINT})"


def _quiet_broken_stdout() -> None:
    """Point stdout at /dev/null, so python's final flush does not report the broken pipe
    a second time."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _escaping_streams() -> None:
    """Text we print (names, messages) may hold a lone surrogate: escape it, don't crash."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]


def _guarded(body: Callable[..., int], *, owns_process: bool = True) -> Callable[..., int]:
    """Run a command body; every exception becomes one line on stderr and an exit code.
    While a command that writes files runs, SIGTERM unwinds like Ctrl-C (so temp files are
    removed on the way) and printed text escapes what cannot be encoded. `run` leaves both
    to the script, as python would."""

    def wrapper(*args: Any, **kwargs: Any) -> int:
        previous = None
        if owns_process:
            _escaping_streams()
            with contextlib.suppress(ValueError):  # not the main thread: leave them
                # Ctrl-C even when started with SIGINT ignored (a background job).
                signal.signal(signal.SIGINT, signal.default_int_handler)
                previous = signal.signal(signal.SIGTERM, raise_terminated)
            # NOTE: the process ends with this command. At exit, Python's cyclic collector
            # walks every object still alive (the engine, numpy, the script's tensors)
            # before freeing them by reference count anyway: frozen, that walk is skipped
            # (~25 ms of the seed render's ~250). Registered once; `run` leaves the exit to
            # the script, whose cycles python collects then.
            atexit.unregister(gc.freeze)
            atexit.register(gc.freeze)
        try:
            return body(*args, **kwargs)
        except BaseException as e:  # noqa: BLE001 - mapped, never a raw traceback
            if isinstance(e, SystemExit):
                raise
            code, message = exit_code_for(e)
            _error(message)
            return code
        finally:
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)

    wrapper.__name__ = body.__name__
    wrapper.__doc__ = body.__doc__
    return wrapper


class _Word(click.ParamType):
    """One word of a vocabulary table, case-insensitive, normalised to the table's spelling
    (click.Choice would list the choices in lower case)."""

    def __init__(self, option: str, words: tuple[str, ...]) -> None:
        self.option, self.words, self.name = option, words, "|".join(words)

    def get_metavar(self, param: Any, ctx: Any = None) -> str:
        return f"[{self.name}]"

    def convert(self, value: Any, param: Any, ctx: Any) -> str:
        for word in self.words:
            if str(value).lower() == word.lower():
                return word
        message = f"unknown {self.option} {value!r}: use one of {', '.join(self.words)}"
        raise click.UsageError(message, ctx)


class _Group(click.Group):
    """click's group, with usage errors said in one line (what is wrong, where to look)."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        try:
            return super().main(*args, **kwargs)
        except click.exceptions.NoArgsIsHelpError as e:
            e.show()
            sys.exit(e.exit_code)
        except click.UsageError as e:
            where = e.ctx.command_path if e.ctx is not None else "detachviz"
            _error(f"{e.format_message()} (see '{where} --help')")
            sys.exit(EXIT_USAGE)
        except click.ClickException as e:
            _error(e.format_message())
            sys.exit(e.exit_code)
        except click.exceptions.Abort:
            _error("interrupted")
            sys.exit(EXIT_INTERRUPTED)


_engine_option = click.option(
    "--engine",
    type=_Word("--engine", engines.ENGINE_NAMES),
    default=None,
    help=f"What `import torch` runs on: {engines.engines_help()}. "
    f"Default: ${engines.ENV}, else {engines.DEFAULT_ENGINE}.",
)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="detachviz")
def cli() -> None:
    """See where gradients flow and where they are cut.

    Runs PyTorch-syntax scripts on detachviz's own numpy autograd engine (no PyTorch
    needed) and draws their computation graphs with every detach() visible.
    """


@cli.command(
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.argument("script", type=click.Path())
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def run(script: str, args: tuple[str, ...]) -> None:
    """Run SCRIPT like `python SCRIPT`, with `import torch` on detachviz's engine."""
    sys.exit(_guarded(_run, owns_process=False)(script, args))


def _run(script: str, args: tuple[str, ...]) -> int:
    from detachviz.runner import run_script

    result = run_script(script, list(args))
    with contextlib.suppress(ValueError, OSError):  # the script may have closed stdout
        sys.stdout.flush()
    if result.error_text:
        with contextlib.suppress(ValueError, OSError):
            sys.stderr.write(result.error_text)
    return result.exit_code


@cli.command()
@click.argument("scripts", nargs=-1, required=True, type=click.Path())
@click.option("-o", "--output", "out", help="Output file; '-' writes to stdout.")
@click.option("--out-dir", type=click.Path(file_okay=False), help="Folder for the images.")
@click.option(
    "--mirror",
    is_flag=True,
    help="With --out-dir: keep each script's folder (relative to here) under it, so "
    "same-named scripts never collide.",
)
@click.option(
    "-f",
    "--format",
    "fmt",
    help=f"{drawing.formats_help()}. Default: -o's suffix, else {drawing.DEFAULT_FORMAT}.",
)
@click.option(
    "--root",
    "roots",
    multiple=True,
    help="Tensor to draw: a name or an expression such as 'losses[0]' (repeatable).",
)
@click.option(
    "--rankdir",
    type=_Word("--rankdir", drawing.RANKDIR_NAMES),
    default=drawing.DEFAULT_RANKDIR,
    show_default=True,
    help=f"{drawing.rankdirs_help()}.",
)
@click.option("--legend", is_flag=True, help="Add a legend of what the drawing contains.")
@click.option("--show-saved", is_flag=True, help="Draw tensors saved for backward.")
@click.option("--show-attrs", is_flag=True, help="Show saved non-tensor attributes.")
@click.option("--expand", is_flag=True, help="Draw every collapsed ×N box in full.")
@click.option(
    "--expand-node",
    "expand_nodes",
    multiple=True,
    metavar="NAME",
    help="Draw the collapsed ×N box named NAME in full: its op (MulBackward0), the variable it "
    "made (h) or its script line (12) (repeatable).",
)
@click.option(
    "--size",
    metavar="W,H",
    help="Fit the drawing into W,H inches (Graphviz size; 'W' for both, '!' to scale up too). "
    "Default: sized by content.",
)
@click.option(
    "--dpi",
    type=click.FloatRange(min=1, max=2400),
    metavar="N",
    help=f"Pixels per inch of png/jpg. Default: {drawing.DEFAULT_DPI:g}.",
)
@click.option("--renderer", type=click.Choice(drawing.RENDERERS), help="Layout program.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if any image is stale.")
@click.option(
    "--allow-errors",
    is_flag=True,
    help="A script that raises still gets its image, drawn up to the failure, and counts as "
    "rendered (for scripts that show an error). Without it a failing script writes no image.",
)
@click.option(
    "--fail-on-write",
    is_flag=True,
    help="Exit 1 when an image was written (pre-commit: new images stop the commit once).",
)
@click.option(
    "-j",
    "--jobs",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="Parallel processes.",
)
@_engine_option
def render(scripts: tuple[str, ...], **kwargs: Any) -> None:
    """Run each SCRIPT and write its computation graph, cuts included."""
    sys.exit(_guarded(_render)(list(scripts), **kwargs))


def _render(
    scripts: list[str],
    *,
    out: str | None,
    out_dir: str | None,
    mirror: bool,
    fmt: str | None,
    roots: tuple[str, ...],
    rankdir: str,
    legend: bool,
    show_saved: bool,
    show_attrs: bool,
    expand: bool,
    expand_nodes: tuple[str, ...],
    size: str | None,
    dpi: float | None,
    renderer: str | None,
    check: bool,
    allow_errors: bool,
    fail_on_write: bool,
    jobs: int,
    engine: str | None,
) -> int:
    from detachviz import pipeline

    request = pipeline.Request(
        engine=engine,
        fmt=fmt,
        roots=tuple(roots),
        allow_errors=allow_errors,
        check=check,
        draw=drawing.DrawOptions(
            rankdir=rankdir,
            legend=legend,
            show_attrs=show_attrs,
            show_saved=show_saved,
            expand=expand,
            expand_nodes=tuple(expand_nodes),
            size=size,
            dpi=dpi,
            renderer=renderer,
        ),
    )
    work = pipeline.jobs_for(scripts, out=out, out_dir=out_dir, mirror=mirror, request=request)
    to_stdout = any(job.target == pipeline.STDOUT for job in work)
    report = _Reporter(len(work))
    # one script: a spinner says what it is doing; several: the reporter's progress bar
    with report, _Status(report.console) if len(work) == 1 else contextlib.nullcontext():
        outcomes = pipeline.render_many(work, workers=jobs, on_done=report.done)
    if to_stdout and outcomes and outcomes[0].data is not None:
        _write_stdout(outcomes[0].data)
    code = report.exit_code(outcomes, check)
    written = [o for o in outcomes if o.status == pipeline.WRITTEN and o.output != pipeline.STDOUT]
    if fail_on_write and written:
        report.console.print("images were written: add them to the commit")
        return EXIT_FAILED
    return code


def _write_stdout(data: bytes) -> None:
    """The image bytes of `-o -`; a closed stdout is a failed output, not a crash."""
    if sys.stdout is None:
        raise OutputError("cannot write to stdout: it is closed")
    try:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    except (OSError, ValueError) as e:  # BrokenPipeError: the reader went away
        raise OutputError(f"cannot write to stdout: {getattr(e, 'strerror', None) or e}") from e


class _Reporter:
    """Per-file lines on stderr; a rich progress bar when stderr is a terminal."""

    MARK = {
        "written": "[green]wrote[/]",
        "unchanged": "[dim]unchanged[/]",
        "current": "[dim]current[/]",
        "stale": "[yellow]stale[/]",
        "failed": "[red]failed[/]",
    }

    def __init__(self, total: int) -> None:
        self.console = _status_console()
        self.total = total
        self.progress: Any = None
        if total > 1 and self.console.is_terminal:
            from rich.progress import Progress

            self.progress = Progress(console=self.console, transient=True)

    def __enter__(self) -> _Reporter:
        if self.progress is not None:
            self.progress.__enter__()
            self.task = self.progress.add_task("rendering", total=self.total)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.__exit__(*exc)

    def done(self, outcome: Any) -> None:
        if outcome.output == "-" and outcome.ok and not outcome.message:
            return  # the bytes on stdout say it; keep stderr quiet for pipes
        where = "stdout" if outcome.output == "-" else outcome.output
        detail = f": {_one_line(outcome.message)}" if outcome.message else ""
        self.console.print(f"{self.MARK[outcome.status]} {_one_line(where)}{detail}")
        if self.progress is not None:
            self.progress.advance(self.task)

    def exit_code(self, outcomes: list[Any], check: bool) -> int:
        failed = [o for o in outcomes if not o.ok]
        if check and failed:
            self.console.print(
                f"{len(failed)} of {len(outcomes)} image(s) stale or failing: "
                "run `detachviz render` without --check to update them"
            )
        return EXIT_FAILED if failed else EXIT_OK


@cli.command()
@click.argument("script", type=click.Path())
@click.option(
    "--root",
    help="The tensor to explain gradients for: a name or an expression (default: the one output).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@_engine_option
def grad(script: str, root: str | None, as_json: bool, engine: str | None) -> None:
    """Explain every leaf's gradient in SCRIPT, including why one is None."""
    sys.exit(_guarded(_grad)(script, root, as_json, engine))


def _grad(script: str, root: str | None, as_json: bool, engine: str | None) -> int:
    from detachviz.gradreport import grad_report

    with _Status():
        report = grad_report(script, root, engines.require(engine))
    if as_json:
        sys.stdout.write(report.to_json())
    else:
        _print_report(report)
    return report.exit_code


STATUS_STYLE = {
    "ok": "green",
    "partly-cut": "yellow",
    "cut": "red",
    "unused": "red",
    "no-grad-required": "dim",
    "non-leaf": "dim",
    "not-run": "red",
    "wrong": "bold red",
}


def _grad_text(grad: dict[str, Any] | None) -> str:
    if grad is None:
        return "None"
    if "values" in grad and len(grad["values"]) <= 6:
        vals = ", ".join(f"{v:.4g}" for v in grad["values"])
        return f"[{vals}]" if grad["shape"] else vals
    return (
        f"mean {grad['mean']:.4g}  norm {grad['norm']:.4g}\n"
        f"min {grad['min']:.4g}  max {grad['max']:.4g}"
    )


def _print_report(report: Any) -> None:
    from rich.markup import escape
    from rich.padding import Padding
    from rich.table import Table

    out, err = _console(wide=True), _console(stderr=True)
    if report.error_text:
        err.print(_shown(report.error_text.rstrip()))
    for note in report.notes:
        out.print(f"[yellow]note:[/] {_shown(note)}")
    if report.backward_by == "detachviz":
        out.print(f"The script did not call backward(); detachviz called {report.root}.backward().")
    elif report.root:
        out.print(f"Gradients of [bold]{_shown(report.root)}[/] (backward called by the script).")
    table = Table(show_lines=False, header_style="bold")
    table.add_column("tensor", no_wrap=True)
    table.add_column("shape", no_wrap=True)
    table.add_column("grad", max_width=28)
    table.add_column("status", no_wrap=True)
    table.add_column("why", ratio=1)
    for r in report.rows:
        style = STATUS_STYLE.get(r.status, "")
        table.add_row(
            _shown(r.name),
            "(" + ", ".join(map(str, r.shape)) + ")",
            escape(_grad_text(r.grad)),
            f"[{style}]{r.status}[/]" if style else r.status,
            _shown(r.reason),
        )
    out.print(table)
    if report.non_leaves:
        names = ", ".join(report.non_leaves)
        out.print(
            f"[dim]Non-leaf tensors keep no .grad: {_shown(names)}. "
            "Call .retain_grad() on one before backward() to see its gradient.[/]"
        )
    for d in report.diagnoses:
        title = "in-place error" if d.kind == "inplace-error" else "warning: write through .data"
        out.print(f"\n[bold red]{title}[/]")
        lines = []
        if d.kind == "inplace-error":
            lines.append(f"torch says: {_shown(d.message)}")
            lines.append(f"the variable: [bold]{_shown(d.variable or '?')}[/]")
            saved_at = f" at line {d.saved_line}" if d.saved_line else ""
            lines.append(f"saved for backward by: {_shown(d.saved_by or '?')}{saved_at}")
            if d.modified_by:
                lines.append(f"changed by: {_shown(d.modified_by)} at line {d.modified_line}")
        else:
            lines.append(_shown(d.message))
        lines.extend(f"fix: {_shown(fix)}" for fix in d.fixes)
        for line in lines:
            out.print(Padding(line, (0, 0, 0, 2)))


@cli.command()
@click.option("--max-power", default=12, show_default=True, help="Sizes 3^0 ... 3^N.")
@click.option("--repeat", default=9, show_default=True, help="Samples per point (median).")
@click.option(
    "--engine",
    "engines",
    multiple=True,
    type=click.Choice(["detachviz", "torch"]),
    help="Engines to time (default: both; torch only when installed).",
)
@click.option("-o", "--output", "out", default="bench.svg", show_default=True, help="Chart.")
@click.option("-f", "--format", "fmt", type=click.Choice(["svg", "png", "jpg"]), help="Chart.")
@click.option("--no-chart", is_flag=True, help="Print the table only.")
@click.option("--json", "as_json", is_flag=True, help="Print results as JSON instead.")
@click.option("--renderer", type=click.Choice(["graphviz-pure", "dot"]), help="Layout program.")
def bench(**kwargs: Any) -> None:
    """Time the tensor-copy idioms (new_tensor, clone().detach(), ...) like perfplot."""
    sys.exit(_guarded(_bench)(**kwargs))


def _bench(
    max_power: int,
    repeat: int,
    engines: tuple[str, ...],
    out: str,
    fmt: str | None,
    no_chart: bool,
    as_json: bool,
    renderer: str | None,
) -> int:
    from rich.progress import Progress
    from rich.table import Table

    from detachviz import bench as timing
    from detachviz.pipeline import write_atomic

    err = _console(stderr=True)
    try:
        with Progress(console=err, transient=True) as progress:
            task = progress.add_task("timing", total=None)

            def on_progress(done: int, total: int, what: str) -> None:
                progress.update(task, completed=done, total=total, description=what)

            results = timing.measure(
                timing.default_sizes(max_power),
                engines or timing.ENGINE_NAMES,
                repeat=repeat,
                on_progress=on_progress,
            )
    except ValueError as e:
        raise UserError(str(e)) from None
    if as_json:
        import json

        sys.stdout.write(json.dumps(results.to_dict(), indent=2) + "\n")
    else:
        header, rows = results.table()
        table = Table(*header, header_style="bold")
        for column in table.columns[1:]:
            column.justify = "right"
        for row in rows:
            table.add_row(*row)
        _console().print(table)
    for engine, why in results.missing.items():
        err.print(f"{engine} not timed: {why}")
    if not no_chart:
        chart_fmt = fmt or (out.rsplit(".", 1)[-1] if "." in out else "svg")
        data = results.chart(chart_fmt, renderer=renderer)  # RenderError: exit 1
        try:
            write_atomic(out, data)
        except OSError as e:
            raise OutputError(f"cannot write {out}: {e.strerror or e}") from None
        err.print(f"wrote {out}")
    return EXIT_OK


def main() -> None:
    """Console-script entry point."""
    try:
        cli.main(prog_name="detachviz")
    except KeyboardInterrupt as e:  # between commands' own handling, e.g. while importing
        sys.exit(exit_code_for(e)[0])


if __name__ == "__main__":
    main()
