"""The Python API: `with trace() as t:` records ops, `t.draw(loss)` and `t.explain()` read them.

A trace is what `detachviz render` and `grad` do to a script, for code the caller runs
itself: the op trace comes from the engine's recorder, roots are picked as the CLI picks
them, names come from the caller's namespace (as the CLI's come from the script's) and lines
from the caller's source file (a notebook cell's own lines for a cell).
"""

from __future__ import annotations

import html
import re
import sys
import traceback
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import Any

from detachviz.engine import trace as recording
from detachviz.errors import UserError
from detachviz.graph.capture import Options, capture
from detachviz.graph.model import Graph
from detachviz.render.options import (
    DEFAULT_DRAW,
    DEFAULT_RANKDIR,
    DEFAULT_VIEW,
    DrawOptions,
    HtmlView,
    expand_names,
    size_text,
)

# Names IPython keeps in a notebook's namespace for its own history (`_`, `__`, `_5`, `_i5`,
# `Out`, ...): a tensor shown as a cell's result is bound to them too, and must keep its own
# name. `_` is bound when the kernel starts, so by definition order it would come first.
_IPYTHON_NAMES = re.compile(r"_+|_\d+|_i+|_i\d+|_[oid]h|In|Out|get_ipython|exit|quit")


class CallerNamespace(Mapping[str, Any]):
    """The variables the caller can see, live: its locals, then its globals, without
    IPython's history names. The runner's root picking and naming read it like a script's
    globals."""

    def __init__(self, *scopes: Mapping[str, Any] | FrameType) -> None:
        self._scopes = list(scopes)

    def _maps(self) -> list[Mapping[str, Any]]:
        maps: list[Mapping[str, Any]] = []
        for scope in self._scopes:
            if isinstance(scope, FrameType):
                # NOTE: f_locals of a function frame is a snapshot taken at each access;
                # at module level (scripts, notebook cells) it *is* f_globals.
                if scope.f_locals is not scope.f_globals:
                    maps.append(scope.f_locals)
                maps.append(scope.f_globals)
            else:
                maps.append(scope)
        return maps

    def freeze(self) -> None:
        """Keep what the frames hold now and drop the frames (they pin every local)."""
        self._scopes = list(self._maps())

    def _keys(self) -> list[str]:
        seen: dict[str, None] = {}
        for m in self._maps():
            for k in list(m):
                if isinstance(k, str) and not _IPYTHON_NAMES.fullmatch(k):
                    seen.setdefault(k, None)
        return list(seen)

    def __getitem__(self, key: str) -> Any:
        if _IPYTHON_NAMES.fullmatch(key):
            raise KeyError(key)
        for m in self._maps():
            if key in m:
                return m[key]
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())


class Trace:
    """Records every op run on detachviz's engine while the `with` block runs.

    Made by `detachviz.trace()`. After (or inside) the block, `draw(root)` draws any tensor
    with its cuts, names and lines, and `explain(root)` returns the `grad` report as data.
    An exception raised in the block is recorded (the drawing shows the graph up to the
    failure) and propagates as usual.
    """

    def __init__(
        self,
        caller: FrameType,
        source: str | None,
        namespace: Mapping[str, Any] | None,
        engine: str | None = None,
    ) -> None:
        from detachviz import engines, runner

        self.engine = engines.require(engine)
        self.source = source if source is not None else caller.f_code.co_filename
        # Names: the mapping given, else the caller's (draw's caller first, see _result).
        self._own_names = namespace is None
        self._namespace = CallerNamespace(caller if namespace is None else namespace)
        self._recording: Any = runner.recording(self.engine, self.source)
        self.recorder: recording.Recorder = self._recording.recorder
        self.error: BaseException | None = None
        self.error_text = ""
        self.error_line: int | None = None
        self._run: Any = None
        self._outer_run: Any = None
        self._before: dict[str, Any] = {}

    # ---- the with block ----------------------------------------------------------------
    def __enter__(self) -> Trace:
        from detachviz import runner

        global LAST
        self._before = dict(self._namespace.items())  # to tell what the block bound
        active = recording.RECORDER
        if (
            active is not None
            and active.script == self.source
            and type(active) is type(self.recorder)
        ):
            # Inside a recording of the same code (`detachviz render` of a script that uses
            # the API, a trace in a %%detachviz cell): share it, so neither misses an op.
            self.recorder, self._recording = active, None
        else:
            self._recording.__enter__()  # type: ignore[union-attr]
        self._run = runner.RunResult(
            path=Path(self.source),
            namespace=self._namespace,  # type: ignore[arg-type]  # read-only Mapping
            recorder=self.recorder,
            engine=self.engine,
        )
        # make_dot called inside the block names tensors from this namespace, as in a script
        self._outer_run, runner.CURRENT = runner.CURRENT, self._run
        LAST = self
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        from detachviz import runner

        if self._recording is not None:
            self._recording.__exit__(exc_type, exc, tb)
        runner.CURRENT = self._outer_run
        self._namespace.freeze()
        if exc is not None and not isinstance(exc, KeyboardInterrupt):
            self._record_error(exc)

    def _record_error(self, exc: BaseException) -> None:
        self.error = exc
        self.error_text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        self.error_line = None
        for frame, line in traceback.walk_tb(exc.__traceback__):
            if frame.f_code.co_filename == self.source:
                self.error_line = line
        if isinstance(exc, SyntaxError) and exc.filename == self.source:
            self.error_line = exc.lineno
        self.recorder.saved_behind(exc)  # names the failed node, as `.node`
        self._run.exit_code = 1
        self._run.error = exc
        self._run.error_text = self.error_text
        self._run.error_line = self.error_line

    # ---- what it recorded --------------------------------------------------------------
    @property
    def namespace(self) -> Mapping[str, Any]:
        """Where names come from: the caller's locals and globals (or the given mapping)."""
        return self._namespace

    def _result(self, caller: FrameType | None) -> Any:
        """The runner's view of this trace; names are looked up first in `caller`'s scope
        (where draw or explain was called), unless the trace was given a namespace."""
        from detachviz import runner

        if self._run is None:
            raise RuntimeError("use the trace as `with detachviz.trace() as t:` first")
        if caller is None or not self._own_names:
            return self._run
        return runner.RunResult(
            path=self._run.path,
            namespace=CallerNamespace(caller, self._namespace),  # type: ignore[arg-type]
            recorder=self.recorder,
            exit_code=self._run.exit_code,
            error=self._run.error,
            error_text=self._run.error_text,
            error_line=self._run.error_line,
            engine=self.engine,
        )

    def graph(
        self,
        root: Any = None,
        *,
        show_saved: bool = False,
        show_attrs: bool = False,
    ) -> Graph:
        """The graph model for `root` (a tensor, a name, or a sequence of them; default:
        what backward() ran on, else the final tensors that require grad)."""
        return self._graph(root, sys._getframe(1), show_saved, show_attrs)

    def _graph(
        self, root: Any, caller: FrameType | None, show_saved: bool, show_attrs: bool
    ) -> Graph:
        from detachviz import runner

        result = self._result(caller)
        roots = _roots(result, root)
        error: dict[str, object] | None = None
        if self.error is not None:
            last = self.error_text.strip().splitlines()[-1] if self.error_text else ""
            error = {"message": last or repr(self.error), "line": self.error_line}
        return capture(
            roots,
            self.recorder,
            runner.tensor_names(result.namespace),
            Options(show_saved=show_saved, show_attrs=show_attrs),
            error=error,
            failed_fn=getattr(self.error, "node", None),
        )

    def draw(
        self,
        root: Any = None,
        *,
        rankdir: str = DEFAULT_RANKDIR,
        legend: bool = False,
        show_saved: bool = False,
        show_attrs: bool = False,
        expand: bool = False,
        expand_nodes: str | int | Sequence[str | int] = (),
        size: str | float | tuple[float, float] | None = None,
        dpi: float | None = None,
        renderer: str | None = None,
    ) -> Drawing:
        """Draw `root` (see `graph`) with cuts, names and lines. The options are `render`'s
        (`render.options.DrawOptions`, the CLI's `--expand-node`, `--size`, `--dpi` ...); a bad
        one is a `detachviz.errors.UserError`, a name in `expand_nodes` that names no
        collapsed box a `detachviz.errors.ScriptFailed`, both with the CLI's message.

        expand_nodes  collapsed ×N boxes to draw in full, each named by its op
                      ("MulBackward0"), the variable it made ("h") or its line (12)
        size          fit into inches: "8,10", 8 (both), (8, 10), "8,10!" (scale up too)
        dpi           pixels per inch of png/jpg (1 to 2400; default 96)
        """
        options = DrawOptions(
            rankdir=rankdir.upper(),
            legend=legend,
            show_saved=show_saved,
            show_attrs=show_attrs,
            expand=expand,
            expand_nodes=expand_names(expand_nodes),
            size=size_text(size),
            dpi=dpi,
            renderer=renderer,
        )
        graph = self._graph(root, sys._getframe(1), show_saved, show_attrs)
        if options.expand_nodes:
            from detachviz.render.dot import drawn_graph

            drawn_graph(graph, options)  # a name that names no box fails here, not on display
        return Drawing(
            graph,
            lines=_source_lines(self.source),
            namespace=self._namespace,
            options=options,
            title=Path(self.source).name,
        )

    def explain(self, root: Any = None) -> Explanation:
        """The `detachviz grad` report for `root` (a tensor or a name; default: what
        backward() ran on, else the one scalar output). If the traced code called no
        backward(), this calls `root.backward()`, as `detachviz grad` does."""
        return self._explain(root, sys._getframe(1))

    def _explain(self, root: Any, caller: FrameType | None) -> Explanation:
        from detachviz import gradreport, runner

        result = self._result(caller)
        ns = self._involved(result.namespace)
        name: str | None = None
        if root is not None and not isinstance(root, str):
            name = runner.tensor_names(result.namespace).get(id(root))
            if name is None:  # an unnamed tensor: give it a name the report can use
                name = "(root)"
            ns = {name: root, **{k: v for k, v in ns.items() if v is not root}}
        elif isinstance(root, str):
            name = root
        lines = _source_lines(self.source)
        report = gradreport.report_for(replace(result, namespace=ns), lines, name, self.source)
        return Explanation(report)

    def _involved(self, namespace: Mapping[str, Any]) -> dict[str, Any]:
        """The variables this trace is about: bound while it recorded, or used by an op it
        recorded. A notebook's namespace holds every earlier cell's tensors too, and the
        report has one row per tensor."""
        used = {id(r.tensor) for rec in self.recorder.records for r in rec.inputs + rec.outputs}
        out = {}
        for k, v in namespace.items():
            if k not in self._before or self._before[k] is not v or id(v) in used:
                out[k] = v
            elif callable(getattr(v, "parameters", None)) and not isinstance(v, type):
                try:
                    if any(id(p) in used for p in v.parameters()):
                        out[k] = v
                except Exception:  # noqa: BLE001 - a user object that merely looks like a module
                    continue
        return out


def trace(
    *,
    source: str | None = None,
    namespace: Mapping[str, Any] | None = None,
    engine: str | None = None,
) -> Trace:
    """Record the ops of a `with` block: `with detachviz.trace() as t: ...; t.draw(loss)`.

    source     the file whose lines the graph reports (default: the caller's file; in a
               notebook, the cell)
    namespace  where tensor names come from (default: the caller's locals and globals)
    engine     whose tensors to trace: "detachviz" (`detachviz.torch`'s) or "torch" (the
               installed PyTorch's real tensors); default $DETACHVIZ_ENGINE, else detachviz
    """
    return Trace(sys._getframe(1), source, namespace, engine)


# The trace opened most recently: `explain()` without a trace, and `%detachviz_grad`.
LAST: Trace | None = None


def explain(root: Any = None, *, trace: Trace | None = None) -> Explanation:
    """The `detachviz grad` report for `root` in `trace` (default: the last trace opened)."""
    t = trace if trace is not None else LAST
    if t is None:
        raise RuntimeError("nothing traced yet: run the code in `with detachviz.trace():`")
    return t._explain(root, sys._getframe(1))


def _roots(result: Any, root: Any) -> list[tuple[str | None, Any]]:
    from detachviz import runner

    if root is None:
        # What backward() ran on, else the final tensors made *inside* the trace: a
        # notebook's namespace also holds every earlier cell's tensors.
        made = {
            k: v for k, v in result.namespace.items() if result.recorder.producer_of(v) is not None
        }
        picked = runner.pick_roots(replace(result, namespace=made))
        names = runner.tensor_names(result.namespace)
        return [(names.get(id(t), name), t) for name, t in picked]
    items = list(root) if isinstance(root, (list, tuple)) else [root]
    names = runner.tensor_names(result.namespace)
    out: list[tuple[str | None, Any]] = []
    for item in items:
        if isinstance(item, str):
            out.extend(runner.pick_roots(result, [item]))
        elif hasattr(item, "grad_fn"):
            out.append((names.get(id(item)), item))
        else:
            raise TypeError(f"root must be a tensor or a variable name, not {type(item).__name__}")
    return out


def _source_lines(source: str) -> list[str]:
    import linecache

    return [line.rstrip("\n") for line in linecache.getlines(source)]


# ---- the drawing ---------------------------------------------------------------------------
class Drawing:
    """A drawn graph: shows itself in Jupyter (svg, and the html view when the front end
    asks for text/html), saves to any format, exposes DOT/JSON.

    graph      the graph model (`detachviz.graph.model.Graph`)
    source     the DOT source
    lines      the traced code's source lines, and
    namespace  its variables: what the html view's hover details read
    options    the `DrawOptions` it is drawn with (rankdir, legend, ...)
    title      the html page's title (the traced file's name, as `render` titles a script's)
    """

    def __init__(
        self,
        graph: Graph,
        *,
        lines: Sequence[str] = (),
        namespace: Mapping[str, Any] | None = None,
        options: DrawOptions = DEFAULT_DRAW,
        title: str = "detachviz",
    ) -> None:
        self.graph = graph
        self.title = title
        self.lines = list(lines)
        self.namespace: Mapping[str, Any] = namespace if namespace is not None else {}
        self.options = options
        self._svg: str | None = None

    @property
    def source(self) -> str:
        """The DOT source, as `render -f dot` writes it."""
        return self.pipe("dot").decode("utf-8")

    def to_json(self) -> str:
        """The graph model as JSON, as `render -f json` writes it."""
        return self.graph.to_json()

    def pipe(self, format: str = "svg") -> bytes:  # noqa: A002 - graphviz's own keyword
        """The drawing as bytes of `format`: a name from `render.options.FORMATS`."""
        from detachviz import pipeline, render

        fmt = pipeline.normalise_format(format)
        view = self._view(page=True) if fmt == "html" else DEFAULT_VIEW
        return render.draw(self.graph, fmt, self.options, view)

    def _view(self, *, page: bool) -> HtmlView:
        """What the html view shows besides the drawing: the code's lines and, per named
        node, its tensor's dtype and grad (the helper `render -f html` uses)."""
        from detachviz import pipeline

        details = pipeline.tensor_details(self.graph, self.namespace)
        return HtmlView(title=self.title, source=self.lines, details=details, page=page)

    def svg(self) -> str:
        """The drawing as SVG text (made once)."""
        if self._svg is None:
            self._svg = self.pipe("svg").decode("utf-8")
        return self._svg

    def to_html(self, *, page: bool = True) -> str:
        """The interactive html view (pan, zoom, hover details, search): a whole offline
        page, or with page=False one `<div>` to embed in another page (a notebook's)."""
        from detachviz import render

        return render.draw(self.graph, "html", self.options, self._view(page=page)).decode()

    def save(self, path: str | Path, format: str | None = None) -> Path:  # noqa: A002
        """Write the drawing to `path`, in `format` or else the one its suffix names (a
        name from `render.options.FORMATS`). Atomic: a failure leaves no half file."""
        from detachviz import pipeline

        target = Path(path)
        fmt = format or target.suffix[1:]
        if not fmt:
            raise UserError(f"cannot tell the format of {str(path)!r}: give it a suffix")
        pipeline.write_atomic(str(target), self.pipe(fmt))
        return target

    def _repr_mimebundle_(
        self, include: Sequence[str] | None = None, exclude: Sequence[str] | None = None
    ) -> dict[str, str]:
        """svg for Jupyter, JupyterLab and VS Code; the embeddable html view too when the
        front end asks for text/html."""
        bundle = {"image/svg+xml": self.svg(), "text/plain": repr(self)}
        if include is not None and "text/html" in include:
            bundle["text/html"] = self.to_html(page=False)
        if exclude:
            bundle = {k: v for k, v in bundle.items() if k not in exclude}
        if include:
            bundle = {k: v for k, v in bundle.items() if k in include}
        return bundle

    def __repr__(self) -> str:
        roots = [self.graph.node(r) for r in self.graph.roots]
        names = ", ".join(n.name or "an unnamed tensor" for n in roots) or "nothing"
        cuts = sum(1 for e in self.graph.edges if e.cut)
        return (
            f"<detachviz.Drawing of {names}: {len(self.graph.nodes)} nodes, "
            f"{len(self.graph.edges)} edges, {cuts} cut{'' if cuts == 1 else 's'}>"
        )


# ---- the grad report -----------------------------------------------------------------------
# Colour of each status in the html table (the CLI's table uses the same meanings).
_STATUS_COLOUR = {
    "ok": "#2e7d32",
    "partly-cut": "#b26a00",
    "cut": "#c62828",
    "unused": "#c62828",
    "not-run": "#c62828",
    "wrong": "#c62828",
}
_COLUMNS = ("tensor", "shape", "grad", "status", "why")


def grad_text(grad: dict[str, Any] | None) -> str:
    """A gradient summary (`grad --json`'s "grad") as the table shows it."""
    if grad is None:
        return "None"
    if "values" in grad and len(grad["values"]) <= 6:
        vals = ", ".join(f"{v:.4g}" for v in grad["values"])
        return f"[{vals}]" if grad["shape"] else vals
    if "mean" not in grad:
        return "[]"
    return (
        f"mean {grad['mean']:.4g}  norm {grad['norm']:.4g}  "
        f"min {grad['min']:.4g}  max {grad['max']:.4g}"
    )


class Explanation:
    """The `detachviz grad` report as data: `rows` are `grad --json`'s "leaves"."""

    def __init__(self, report: Any) -> None:
        self.report = report

    def to_dict(self) -> dict[str, Any]:
        """Exactly what `detachviz grad --json` prints for the same code."""
        return dict(self.report.to_dict())

    @property
    def rows(self) -> list[dict[str, Any]]:
        return [r.to_dict() for r in self.report.rows]

    @property
    def root(self) -> str | None:
        return self.report.root

    def row(self, name: str) -> dict[str, Any]:
        """The row of the tensor called `name`."""
        for r in self.rows:
            if r["name"] == name:
                return r
        raise KeyError(name)

    def _cells(self) -> list[tuple[str, ...]]:
        return [
            (
                r["name"],
                "(" + ", ".join(map(str, r["shape"])) + ")",
                grad_text(r["grad"]),
                r["status"],
                r["reason"],
            )
            for r in self.rows
        ]

    def _heading(self) -> str:
        r = self.report
        if r.backward_by == "detachviz":
            return f"No backward() was traced; detachviz called {r.root}.backward()."
        if r.root:
            return f"Gradients of {r.root} (backward called by the code)."
        return "No backward() ran."

    def _footer(self) -> list[str]:
        r = self.report
        out = [f"note: {n}" for n in r.notes]
        if r.non_leaves:
            out.append(
                f"Non-leaf tensors keep no .grad: {', '.join(r.non_leaves)}. "
                "Call .retain_grad() on one before backward() to see its gradient."
            )
        for d in r.diagnoses:
            out.append(d.message)
            out.extend(f"fix: {fix}" for fix in d.fixes)
        if r.error_text:
            out.append(r.error_text.strip().splitlines()[-1])
        return out

    def __str__(self) -> str:
        cells = [_COLUMNS, *self._cells()]
        widths = [max(len(row[i]) for row in cells) for i in range(len(_COLUMNS) - 1)]
        lines = [self._heading()]
        for row in cells:
            lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[-1])
        lines.extend(self._footer())
        return "\n".join(lines)

    def __rich__(self) -> str:
        """For rich consoles: the text table, its brackets escaped from rich's markup."""
        return str(self).replace("[", "\\[")

    def _repr_html_(self) -> str:
        esc = html.escape
        cell = "padding:2px 8px;text-align:left;vertical-align:top"
        head = "".join(f"<th style='{cell}'>{c}</th>" for c in _COLUMNS)
        body = []
        for cells in self._cells():
            colour = _STATUS_COLOUR.get(cells[3])
            status = esc(cells[3])
            if colour:
                status = f"<span style='color:{colour};font-weight:bold'>{status}</span>"
            tds = [f"<td style='{cell}'><code>{esc(c)}</code></td>" for c in cells[:3]]
            tds += [f"<td style='{cell}'>{status}</td>", f"<td style='{cell}'>{esc(cells[4])}</td>"]
            body.append("<tr>" + "".join(tds) + "</tr>")
        foot = "".join(f"<p>{esc(line)}</p>" for line in self._footer())
        return (
            f"<div class='detachviz-grad'><p>{esc(self._heading())}</p>"
            f"<table style='border-collapse:collapse'><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>{foot}</div>"
        )

    def __repr__(self) -> str:
        return f"<detachviz.Explanation of {self.report.root}: {len(self.report.rows)} rows>"
