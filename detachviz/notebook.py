"""The IPython extension: `%load_ext detachviz`, the `%%detachviz` cell magic and
`%detachviz_grad`.

`%%detachviz` runs a cell on detachviz's engine — `import torch` resolves to it and `torch`,
`nn`, `F` (and `T`, `make_dot`) are bound to it for the cell, the user's own bindings
restored afterwards — inside a `detachviz.trace()`, so the cell's variables stay in the
notebook and its graph is displayed under it, cuts, names and cell lines included.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from types import TracebackType
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display

from detachviz import api, engines
from detachviz.errors import DetachvizError, RootError
from detachviz.render.options import DEFAULT_RANKDIR, RANKDIR_NAMES, RENDERERS

_PACKAGE_DIR = str(Path(__file__).resolve().parent)


# What a request can get wrong (a root name, a format, a renderer, the output file): one
# line each, never a traceback of detachviz's own.
USER_ERRORS = (DetachvizError, OSError)


@magics_class
class DetachvizMagics(Magics):
    """`%%detachviz [options]` and `%detachviz_grad [ROOT]`."""

    @magic_arguments()
    @argument("--root", action="append", default=[], metavar="NAME", help="Tensor to draw.")
    @argument(
        "--rankdir",
        default=DEFAULT_RANKDIR,
        type=str.upper,
        choices=RANKDIR_NAMES,
        help="Direction.",
    )
    @argument("--legend", action="store_true", help="Add a legend of what the drawing contains.")
    @argument("--show-saved", action="store_true", help="Draw tensors saved for backward.")
    @argument("--show-attrs", action="store_true", help="Show saved non-tensor attributes.")
    @argument("--expand", action="store_true", help="Draw every collapsed ×N box in full.")
    @argument(
        "--expand-node",
        action="append",
        default=[],
        metavar="NAME",
        help="Draw the collapsed ×N box named NAME in full: its op (MulBackward0), the variable "
        "it made (h) or its cell line (12) (repeatable).",
    )
    @argument(
        "--size",
        metavar="W,H",
        help="Fit the drawing into W,H inches ('W' for both, '!' to scale up too).",
    )
    @argument("--dpi", type=float, metavar="N", help="Pixels per inch of png/jpg (-o).")
    @argument("--renderer", choices=RENDERERS, help="Layout program.")
    @argument("-o", "--output", metavar="FILE", help="Also save the drawing (format: suffix).")
    @argument(
        "--engine",
        type=str.lower,
        choices=engines.ENGINE_NAMES,
        help=f"What `import torch` runs on (default: ${engines.ENV}, else "
        f"{engines.DEFAULT_ENGINE}).",
    )
    @argument("--grad", action="store_true", help="Also show the grad report table.")
    @argument("--no-graph", action="store_true", help="Run and trace, draw nothing.")
    @argument(
        "--allow-errors",
        action="store_true",
        help="A cell that raises shows its traceback but does not fail (as render does).",
    )
    @cell_magic
    def detachviz(self, line: str, cell: str) -> None:
        """Run the cell on detachviz's engine and show its computation graph, cuts included.

        torch, nn and F are detachviz's for the cell; its variables stay in the notebook.
        """
        __tracebackhide__ = True  # noqa: F841 - IPython hides this frame in tracebacks
        args = parse_argstring(self.detachviz, line)
        shell: Any = self.shell
        try:
            engine = engines.require(args.engine)
        except DetachvizError as e:
            raise UsageError(str(e)) from None
        t, error = run_cell(shell, cell, engine)
        try:
            if not args.no_graph:
                drawing = self._draw(t, args)
                if drawing is not None:
                    display(drawing)
                    if args.output:
                        drawing.save(args.output)
            if args.grad:
                display(t.explain(args.root[0] if args.root else None))
        except USER_ERRORS as e:
            if error is None:
                raise UsageError(str(e)) from None
            print(f"detachviz: {e}", file=sys.stderr)
        if error is None:
            return
        if args.allow_errors:
            shell.showtraceback((type(error), error, _cell_frames(error, t.source)), tb_offset=0)
            return
        raise error.with_traceback(_cell_frames(error, t.source))

    def _draw(self, t: api.Trace, args: Any) -> api.Drawing | None:
        try:
            return t.draw(
                args.root or None,
                rankdir=args.rankdir,
                legend=args.legend,
                show_saved=args.show_saved,
                show_attrs=args.show_attrs,
                expand=args.expand,
                expand_nodes=args.expand_node,
                size=args.size,
                dpi=args.dpi,
                renderer=args.renderer,
            )
        except RootError as e:
            if args.root:
                raise
            if t.error is None:  # a cell that only defines things; a failed one says why
                print(f"detachviz: {e}", file=sys.stderr)
            return None

    @line_magic
    def detachviz_grad(self, line: str) -> api.Explanation:
        """Show the grad report of the last traced cell: `%detachviz_grad [ROOT]`."""
        if api.LAST is None:
            raise UsageError("no traced cell yet: run one with %%detachviz first")
        root = line.strip() or None
        try:
            return api.LAST.explain(root)
        except USER_ERRORS as e:
            raise UsageError(str(e)) from None


def run_cell(
    shell: Any, cell: str, engine: str = engines.DEFAULT_ENGINE
) -> tuple[api.Trace, BaseException | None]:
    """Run `cell` in the notebook's namespace on `engine` (engines.py), traced; the trace
    and the cell's exception (already recorded in the trace), if it raised."""
    from detachviz import runner
    from detachviz.engine import state

    ns = shell.user_ns
    # `%time`, `!ls` and friends inside the cell become Python; the leading newline stands
    # for the `%%detachviz` line, so that lines in the graph and tracebacks are the lines
    # the notebook shows.
    code = "\n" + shell.transform_cell(cell)
    # A cell name IPython knows: tracebacks show "Cell In[7], line 3" and its code.
    filename = shell.compile.cache(code, shell.execution_count, raw_code=cell)
    error: BaseException | None = None
    with runner.compat_modules(engine):
        bound = runner.prebound()
        own = {k: ns[k] for k in bound if k in ns}
        ns.update(bound)
        t = api.trace(source=filename, namespace=ns, engine=engine)
        try:
            with t, state.float_errors_silenced():
                _execute(code, filename, ns)
        except Exception as e:  # the cell's own failure: drawn, then shown like IPython
            error = e
        finally:
            for k, value in bound.items():
                if ns.get(k) is value:  # the cell did not rebind it: give the user's back
                    if k in own:
                        ns[k] = own[k]
                    else:
                        del ns[k]
    return t, error


def _execute(code: str, filename: str, ns: dict[str, Any]) -> None:
    """Run the cell as IPython does: its last expression, if any, is displayed."""
    tree = ast.parse(code, filename)
    last = tree.body[-1] if tree.body else None
    if isinstance(last, ast.Expr):
        tree.body.pop()
    exec(compile(tree, filename, "exec"), ns)
    if isinstance(last, ast.Expr):
        value = eval(compile(ast.Expression(last.value), filename, "eval"), ns)
        if value is not None:
            display(value)


def _cell_frames(error: BaseException, source: str) -> Any:
    """The traceback from the cell's first frame on, without detachviz's own frames (the
    magic's and the engine's), as `detachviz run` trims a script's."""
    frames = []
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != source:
        tb = tb.tb_next
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith(_PACKAGE_DIR):
            frames.append(tb)
        tb = tb.tb_next
    if not frames:  # a SyntaxError: the error itself says where
        return None
    trimmed = None
    for tb in reversed(frames):
        trimmed = TracebackType(trimmed, tb.tb_frame, tb.tb_lasti, tb.tb_lineno)
    return trimmed


def load(shell: Any) -> None:
    """Register the magics (what `%load_ext detachviz` does)."""
    shell.register_magics(DetachvizMagics)
