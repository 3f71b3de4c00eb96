"""The command line: thin click commands; the only module that imports click and rich.

Each command body orchestrates; decisions live in runner, pipeline and graph.explain.
Exit codes: 0 ok, 1 script/render failure or stale images, 2 usage, 3 internal, 130 interrupt.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from detachviz import __version__

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130

BUG_HINT = "this is a bug in detachviz; please report it with the script that triggered it"


class UserError(Exception):
    """A problem with the user's input: one line, no traceback, exit code attached."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


def _console(stderr: bool = False, wide: bool = False) -> Any:
    from rich.console import Console

    console = Console(stderr=stderr, highlight=False, soft_wrap=not wide)
    if wide and not console.is_terminal:
        console.width = 120  # files and pipes: room for the table's "why" column
    return console


def _error(message: str) -> None:
    from rich.markup import escape

    _console(stderr=True).print(f"[bold red]error:[/] {escape(message)}")


def _guarded(body: Callable[..., int]) -> Callable[..., int]:
    """Map every exception to one line and an exit code (the one place that does)."""

    def wrapper(*args: Any, **kwargs: Any) -> int:
        from detachviz.runner import ScriptNotFound

        try:
            return body(*args, **kwargs)
        except UserError as e:
            _error(str(e))
            return e.code
        except ScriptNotFound as e:
            _error(f"{e} (check the path)")
            return EXIT_USAGE
        except KeyboardInterrupt:
            _error("interrupted")
            return EXIT_INTERRUPTED
        except Exception as e:  # noqa: BLE001 - last resort: never a raw traceback
            _error(f"internal error: {type(e).__name__}: {e} ({BUG_HINT})")
            return EXIT_INTERNAL

    wrapper.__name__ = body.__name__
    wrapper.__doc__ = body.__doc__
    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="detachviz")
def cli() -> None:
    """See where gradients flow and where they are cut.

    Runs PyTorch-syntax scripts on detachviz's own numpy autograd engine (no PyTorch
    needed) and draws their computation graphs with every detach() visible.
    """


@cli.command(
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.argument("script", type=click.Path(dir_okay=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def run(script: str, args: tuple[str, ...]) -> None:
    """Run SCRIPT like `python SCRIPT`, with `import torch` on detachviz's engine."""
    sys.exit(_guarded(_run)(script, args))


def _run(script: str, args: tuple[str, ...]) -> int:
    from detachviz.runner import run_script

    result = run_script(script, list(args))
    sys.stdout.flush()
    if result.error_text:
        sys.stderr.write(result.error_text)
    return result.exit_code


@cli.command()
@click.argument("scripts", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("-o", "--output", "out", help="Output file; '-' writes to stdout.")
@click.option("--out-dir", type=click.Path(file_okay=False), help="Folder for the images.")
@click.option(
    "-f",
    "--format",
    "fmt",
    help="svg, png, jpg, pdf, html (an interactive page), dot or json. Default: -o's suffix.",
)
@click.option("--root", "roots", multiple=True, help="Tensor to draw (repeatable).")
@click.option("--rankdir", default="TB", show_default=True, help="TB (top-down), LR, BT or RL.")
@click.option("--legend", is_flag=True, help="Add a legend of node kinds and cut edges.")
@click.option("--show-saved", is_flag=True, help="Draw tensors saved for backward.")
@click.option("--show-attrs", is_flag=True, help="Show saved non-tensor attributes.")
@click.option("--expand", is_flag=True, help="Draw repeated chains in full (no collapsing).")
@click.option("--renderer", type=click.Choice(["graphviz-pure", "dot"]), help="Layout program.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if any image is stale.")
@click.option(
    "--allow-errors",
    is_flag=True,
    help="A script that raises still counts as rendered (for scripts that show an error).",
)
@click.option(
    "--fail-on-write",
    is_flag=True,
    help="Exit 1 when an image was written (pre-commit: new images stop the commit once).",
)
@click.option("-j", "--jobs", default=1, show_default=True, help="Parallel processes.")
def render(scripts: tuple[str, ...], **kwargs: Any) -> None:
    """Run each SCRIPT and write its computation graph, cuts included."""
    sys.exit(_guarded(_render)(list(scripts), **kwargs))


def _render(
    scripts: list[str],
    out: str | None,
    out_dir: str | None,
    fmt: str | None,
    roots: tuple[str, ...],
    rankdir: str,
    legend: bool,
    show_saved: bool,
    show_attrs: bool,
    expand: bool,
    renderer: str | None,
    check: bool,
    allow_errors: bool,
    fail_on_write: bool,
    jobs: int,
) -> int:
    from detachviz import pipeline

    opts = pipeline.RenderOptions(
        fmt,
        tuple(roots),
        rankdir.upper(),
        legend,
        show_saved,
        show_attrs,
        expand,
        renderer,
        allow_errors,
    )
    try:
        work = pipeline.jobs_for(scripts, out, out_dir, check, opts)
    except pipeline.PipelineError as e:
        raise UserError(str(e)) from None
    report = _Reporter(len(work), quiet_stdout=out == "-")
    with report:
        outcomes = pipeline.render_many(work, workers=max(1, jobs), on_done=report.done)
    if out == "-" and outcomes and outcomes[0].data is not None:
        sys.stdout.buffer.write(outcomes[0].data)
        sys.stdout.flush()
    code = report.exit_code(outcomes, check)
    if fail_on_write and any(o.status == "written" and o.output != "-" for o in outcomes):
        report.console.print("images were written: add them to the commit")
        return EXIT_FAILED
    return code


class _Reporter:
    """Per-file lines on stderr; a rich progress bar when stderr is a terminal."""

    MARK = {
        "written": "[green]wrote[/]",
        "unchanged": "[dim]unchanged[/]",
        "current": "[dim]current[/]",
        "stale": "[yellow]stale[/]",
        "failed": "[red]failed[/]",
    }

    def __init__(self, total: int, quiet_stdout: bool) -> None:
        self.console = _console(stderr=True)
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
        from rich.markup import escape

        if outcome.output == "-" and outcome.ok:
            return  # the bytes on stdout say it; keep stderr quiet for pipes
        where = "stdout" if outcome.output == "-" else outcome.output
        detail = f": {escape(outcome.message)}" if outcome.message else ""
        self.console.print(f"{self.MARK[outcome.status]} {escape(where)}{detail}")
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
@click.argument("script", type=click.Path(dir_okay=False))
@click.option("--root", help="The tensor to explain gradients for (default: the one output).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def grad(script: str, root: str | None, as_json: bool) -> None:
    """Explain every leaf's gradient in SCRIPT, including why one is None."""
    sys.exit(_guarded(_grad)(script, root, as_json))


def _grad(script: str, root: str | None, as_json: bool) -> int:
    from detachviz.gradreport import grad_report
    from detachviz.runner import RootError

    try:
        report = grad_report(script, root)
    except RootError as e:
        raise UserError(str(e), EXIT_FAILED) from None
    if as_json:
        import json

        sys.stdout.write(json.dumps(report.to_dict(), indent=2) + "\n")
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
        err.print(escape(report.error_text.rstrip()))
    for note in report.notes:
        out.print(f"[yellow]note:[/] {escape(note)}")
    if report.backward_by == "detachviz":
        out.print(f"The script did not call backward(); detachviz called {report.root}.backward().")
    elif report.root:
        out.print(f"Gradients of [bold]{escape(report.root)}[/] (backward called by the script).")
    table = Table(show_lines=False, header_style="bold")
    table.add_column("tensor", no_wrap=True)
    table.add_column("shape", no_wrap=True)
    table.add_column("grad", max_width=28)
    table.add_column("status", no_wrap=True)
    table.add_column("why", ratio=1)
    for r in report.rows:
        style = STATUS_STYLE.get(r.status, "")
        table.add_row(
            escape(r.name),
            "(" + ", ".join(map(str, r.shape)) + ")",
            escape(_grad_text(r.grad)),
            f"[{style}]{r.status}[/]" if style else r.status,
            escape(r.reason),
        )
    out.print(table)
    if report.non_leaves:
        names = ", ".join(report.non_leaves)
        out.print(
            f"[dim]Non-leaf tensors keep no .grad: {escape(names)}. "
            "Call .retain_grad() on one before backward() to see its gradient.[/]"
        )
    for d in report.diagnoses:
        title = "in-place error" if d.kind == "inplace-error" else "warning: write through .data"
        out.print(f"\n[bold red]{title}[/]")
        lines = []
        if d.kind == "inplace-error":
            lines.append(f"torch says: {escape(d.message)}")
            lines.append(f"the variable: [bold]{escape(d.variable or '?')}[/]")
            saved_at = f" at line {d.saved_line}" if d.saved_line else ""
            lines.append(f"saved for backward by: {escape(d.saved_by or '?')}{saved_at}")
            if d.modified_by:
                lines.append(f"changed by: {escape(d.modified_by)} at line {d.modified_line}")
        else:
            lines.append(escape(d.message))
        lines.extend(f"fix: {escape(fix)}" for fix in d.fixes)
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
    from detachviz.render import RenderError

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
        try:
            write_atomic(out, results.chart(chart_fmt, renderer=renderer))
        except RenderError as e:
            raise UserError(str(e), EXIT_FAILED) from None
        except OSError as e:
            raise UserError(f"cannot write {out}: {e.strerror or e}", EXIT_FAILED) from None
        err.print(f"wrote {out}")
    return EXIT_OK


def main() -> None:
    """Console-script entry point."""
    try:
        cli.main(prog_name="detachviz", standalone_mode=True)
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)


if __name__ == "__main__":
    main()
