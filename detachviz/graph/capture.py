"""Capture: build the graph model from the engine's autograd graph and its op trace.

Two walks, one worklist. The autograd walk is torchviz's: from each root's `grad_fn` along
`next_functions`, giving `function` and `leaf` nodes (AccumulateGrad folded into its leaf).
The trace walk starts at every drawn function's forward record and follows the inputs that
did not require grad back through their producers; where it meets a cut (detach, detach_,
.data, no_grad, a copy) it draws a cut edge to the value's source, and the source's own
history — not visited by the root's backward — is drawn `untracked`. Regions made only of
constants (no cut behind them) are not drawn, as torchviz does not draw constants.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from detachviz.engine.trace import Record, Recorder, Ref
from detachviz.graph.model import Edge, Graph, Node, paused_gc
from detachviz.graph.vocab import (
    BASE,
    DATA,
    DETACH_,
    DIFFERENTIATIONS,
    EDGE_CUTS,
    FUNCTION,
    INPLACE,
    LEAF,
    NO_GRAD,
    OUTPUT,
    SAVED,
    UNTRACKED,
)


def _shape(tensor: Any) -> tuple[int, ...]:
    return tuple(int(d) for d in tensor.shape)


@dataclass
class Options:
    show_saved: bool = False
    show_attrs: bool = False
    max_attr_chars: int = 50


@dataclass
class _Builder:
    names: dict[int, str]
    options: Options
    recorder: Recorder | None = None
    by_grad_fn: dict[int, Record] = field(default_factory=dict)
    reaches_cut: dict[int, bool] = field(default_factory=dict)  # record index -> a cut behind
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    ids: dict[tuple[Any, ...], str] = field(default_factory=dict)
    tracked: set[int] = field(default_factory=set)  # id() of what the roots' backward visits
    edge_seen: set[tuple[str, str, str | None]] = field(default_factory=set)
    drawn_fns: list[tuple[str, Record]] = field(default_factory=list)  # (node id, its record)
    keep: list[Any] = field(default_factory=list)  # keeps id() keys alive while capturing
    root_ids: set[int] = field(default_factory=set)  # id() of the root tensors
    work: list[tuple[Any, str]] = field(default_factory=list)  # (grad_fn, node id) to trace-walk

    # ---- nodes and edges -------------------------------------------------------------
    def add_node(self, key: tuple[Any, ...], kind: str, label: str, **kw: Any) -> tuple[str, bool]:
        if key in self.ids:
            return self.ids[key], False
        node_id = f"n{len(self.nodes)}"
        self.ids[key] = node_id
        self.nodes.append(Node(id=node_id, kind=kind, label=label, **kw))
        return node_id, True

    def add_edge(
        self,
        source: str,
        target: str,
        cut: str | None = None,
        line: int | None = None,
        write: str | None = None,
    ) -> None:
        key = (source, target, cut or write)
        if key not in self.edge_seen:
            self.edge_seen.add(key)
            self.edges.append(Edge(source, target, cut, line, write))

    def tensor_node(self, key_kind: str, tensor: Any, kind: str, line: int | None = None) -> str:
        return self._tensor_node(key_kind, tensor, kind, line)[0]

    def _tensor_node(
        self, key_kind: str, tensor: Any, kind: str, line: int | None = None
    ) -> tuple[str, bool]:
        key = (key_kind, id(tensor))
        known = self.ids.get(key)
        if known is not None:  # (a leaf read by 20,000 ops is looked up 20,000 times)
            return known, False
        self.keep.append(tensor)
        name = self.names.get(id(tensor))
        return self.add_node(key, kind, name or "", name=name, shape=_shape(tensor), line=line)

    # ---- the autograd walk -----------------------------------------------------------
    def function_node(self, fn: Any, kind: str) -> str:
        """The node for a backward node (or its leaf), walking its subgraph on first sight."""
        start, new = self._node_for_fn(fn, kind)
        if not new:
            return start
        stack = [(fn, start)]
        while stack:
            fn_, fn_id = stack.pop()
            if hasattr(fn_, "variable"):
                continue
            children = []
            for child, _ in fn_.next_functions:
                if child is None:
                    continue
                child_id, new = self._node_for_fn(child, kind)
                self.add_edge(child_id, fn_id)
                if new:
                    children.append((child, child_id))
            stack.extend(reversed(children))
        return start

    def _node_for_fn(self, fn: Any, kind: str) -> tuple[str, bool]:
        """fn's node id, and whether it was made now (its subgraph is then still to walk)."""
        if hasattr(fn, "variable"):  # AccumulateGrad: draw its leaf tensor instead
            self.keep.append(fn)
            return self._tensor_node("leaf", fn.variable, LEAF if kind == FUNCTION else kind)
        key = ("fn", id(fn))
        known = self.ids.get(key)
        if known is not None:
            return known, False
        self.keep.append(fn)
        rec = self.by_grad_fn.get(id(fn))
        node_id, _ = self.add_node(
            key,
            kind,
            type(fn).__name__,  # as torchviz labels it (name() may be `torch::autograd::...`)
            name=self._output_name(fn, rec),
            line=rec.line if rec is not None else None,
            attrs=self._attrs(fn) if self.options.show_attrs else {},
        )
        self.work.append((fn, node_id))
        if rec is not None:
            self.drawn_fns.append((node_id, rec))  # whether it saved anything: only if needed
        if self.options.show_saved and kind == FUNCTION:
            self._saved_nodes(fn, node_id, rec)
        return node_id, True

    def _output_name(self, fn: Any, rec: Record | None) -> str | None:
        """The script's name for the value this backward node's op produced (`h` for
        `h = torch.tanh(...)`), unless that value is a root, drawn as its own named box."""
        if rec is None:
            return None
        for o in rec.outputs:
            if o.grad_fn is fn:
                out = o.tensor
                if out is None or id(out) in self.root_ids:
                    return None
                return self.names.get(id(out))
        return None

    def _saved_items(self, fn: Any) -> list[tuple[str, Any]]:
        items = []
        for attr in dir(fn):
            if attr.startswith("_saved_") and not attr.startswith("_saved_variables"):
                try:
                    items.append((attr[len("_saved_") :], getattr(fn, attr)))
                except RuntimeError:  # freed after backward, as in torch
                    continue
        return items

    def _attrs(self, fn: Any) -> dict[str, str]:
        if not self.options.show_attrs:
            return {}
        out = {}
        for name, val in self._saved_items(fn):
            if _is_tensor(val):  # torchviz's placeholders (--show-saved draws the tensors)
                text = "[saved tensor]"
            elif isinstance(val, tuple) and any(map(_is_tensor, val)):
                text = "[saved tensors]"
            else:
                text = str(val)
            limit = self.options.max_attr_chars
            out[name] = text if len(text) <= limit else text[: limit - 3] + "..."
        return out

    def _saved_nodes(self, fn: Any, fn_id: str, rec: Record | None) -> None:
        """One saved node per (backward node, saved tensor attribute), as torchviz draws
        them: a tensor saved by two nodes (a relu's `result` that the next matmul saved as
        `self`) is two boxes, each under its own node's name for it."""
        for name, val in _saved_tensors(fn, rec, self.recorder):
            self.keep.append(val)
            node_id, _ = self.add_node(("saved", id(fn), name), SAVED, name, shape=_shape(val))
            self.add_edge(node_id, fn_id)

    # ---- the trace walk --------------------------------------------------------------
    def source_node(self, ref: Ref) -> str:
        """The node for a value that requires grad, on either side of a cut."""
        fn = ref.grad_fn
        if fn is None:
            kind = LEAF if id(ref.tensor) in self.tracked else UNTRACKED
            return self.tensor_node("leaf", ref.tensor, kind)
        kind = FUNCTION if id(fn) in self.tracked else UNTRACKED
        return self.function_node(fn, kind)

    def untracked_inputs(self, refs: tuple[Ref, ...], consumer: str) -> None:
        """Draw what flowed into `consumer` from values that did not require grad."""
        stack = [(r, consumer) for r in reversed(refs) if not r.requires_grad]
        while stack:
            ref, target = stack.pop()
            prod = ref.producer
            if prod is None or not self.reaches_cut[prod.index]:
                continue
            if prod.cut in EDGE_CUTS:
                src = prod.inputs[0]
                if src.requires_grad:
                    self.add_edge(self.source_node(src), target, prod.cut, prod.line)
                else:  # e.g. constant.detach(): nothing is cut here, look further back
                    stack.append((src, target))
                continue
            # NOTE: the output may be gone (the trace does not keep a dropped value alive):
            # then it has no name, and its snapshot still knows its shape
            first = prod.outputs[0] if prod.outputs else None
            out = first.tensor if first is not None else None
            node_id, new = self.add_node(
                ("rec", prod.index),
                UNTRACKED,
                prod.op,
                name=self.names.get(id(out)) if out is not None else None,
                shape=first.shape if first is not None else None,
                line=prod.line,
            )
            self.add_edge(node_id, target)
            if not new:
                continue
            for r in reversed(prod.inputs):
                if r.requires_grad:  # only under no_grad can an input requiring grad get here
                    self.add_edge(self.source_node(r), node_id, prod.cut or NO_GRAD, prod.line)
                else:
                    stack.append((r, node_id))

    def drain(self) -> None:
        while self.work:
            fn, node_id = self.work.pop()
            rec = self.by_grad_fn.get(id(fn))
            if rec is not None:
                self.untracked_inputs(rec.inputs, node_id)


def _is_tensor(value: Any) -> bool:
    return hasattr(value, "grad_fn") and hasattr(value, "shape")


def _saved_tensors(fn: Any, rec: Record | None, recorder: Any) -> list[tuple[str, Any]]:
    """(name, tensor) for every tensor `fn` exposes as a `_saved_*` attribute, in `dir()`
    order as torchviz lists them; a tuple attribute gives `name[i]` per tensor in it, and a
    custom Function's `saved_tensors` one unnamed entry per tensor (torchviz's label). A value
    backward already freed (torch raises on reading it) comes from the op's trace record,
    which keeps what the node saved, so saved tensors are drawn after training steps too."""
    recorded: dict[str, Any] | None = None
    out: list[tuple[str, Any]] = []
    for attr in dir(fn):
        if not attr.startswith("_saved_") or attr == "_saved_variables":
            continue
        name = attr[len("_saved_") :]
        try:
            value = getattr(fn, attr)
        except RuntimeError:  # freed by backward
            if recorded is None:  # a derivative graph's node has no record of its own
                recorded = dict(recorder.derived_saved(fn)) if recorder is not None else {}
                if rec is not None:
                    recorded.update(rec.saved_values())
            value = recorded.get(name)
        if _is_tensor(value):
            out.append((name, value))
        elif isinstance(value, tuple):
            out.extend((f"{name}[{i}]", t) for i, t in enumerate(value) if _is_tensor(t))
    # a custom autograd.Function's ctx.save_for_backward: unnamed boxes, as torchviz draws them
    try:
        custom = getattr(fn, "saved_tensors", ())
    except RuntimeError:  # freed by backward
        custom = ()
    out.extend(("", t) for t in custom or () if _is_tensor(t))
    return out


def _draw_writes(b: _Builder, recorder: Recorder, roots: list[Any]) -> None:
    """Draw in-place writes into tensors that drawn backward nodes saved, when a backward
    that reads the saved value runs after the write: the cause of torch's in-place error (or,
    through `.data`, of a silently wrong gradient), which torch reports only by shape.

    A backward "runs after the write" when the script differentiated, after it, a root whose
    graph holds the saving node — or, for the drawn roots, when the script never
    differentiated them (their backward is what render and grad would run). A write after
    the last backward that used the node (an optimizer step, a TBPTT chunk's update) is
    harmless: torch never reads that saved value again."""
    writes = [w for w in recorder.records if w.inplace and w.op != DETACH_ and w.inputs]
    if not writes:
        return
    diffs = [rec for rec in recorder.records if rec.op in DIFFERENTIATIONS]
    ran = {id(r.tensor) for rec in diffs for r in rec.inputs}
    would_run = _reachable(t.grad_fn for t in roots if id(t) not in ran)
    last_run: dict[int, int] = {}  # id(backward node) -> index of the last backward running it

    def read_later(saver: Record, w: Record) -> bool:
        fn = saver.outputs[0].grad_fn if saver.outputs else None
        if fn is None:
            return False
        if id(fn) in would_run:
            return True
        if not last_run:  # built once, on the first write that hits a saved tensor
            for rec in diffs:
                for node in _reachable(r.grad_fn for r in rec.inputs):
                    last_run[node] = rec.index
        return last_run.get(id(fn), -1) > w.index

    savers: list[tuple[str, Record]] = []  # the drawn nodes that saved something, in order
    looked = 0
    for w in writes:
        target = w.inputs[0].tensor
        savers += [(node_id, rec) for node_id, rec in b.drawn_fns[looked:] if rec.saved]
        looked = len(b.drawn_fns)
        for node_id, saver in list(savers):
            if saver.index >= w.index:
                continue
            hit = next((sv for sv in saver.saved if _same_memory(sv.tensor, target)), None)
            if hit is None or not read_later(saver, w):
                continue
            same_counter = recorder.shares_version_counter(hit.tensor, target)
            w_id = _write_node(b, w, target)
            b.add_edge(w_id, node_id, line=w.line, write=INPLACE if same_counter else DATA)


def _reachable(starts: Any) -> set[int]:
    """Ids of the backward nodes a backward from these grad_fns runs (an explicit stack)."""
    seen: set[int] = set()
    stack = [fn for fn in starts if fn is not None]
    while stack:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        stack.extend(c for c, _ in getattr(fn, "next_functions", ()) if c is not None)
    return seen


def _same_memory(a: Any, b: Any) -> bool:
    return a is b or a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _write_node(b: _Builder, w: Record, target: Any) -> str:
    """The in-place op as an untracked node, with what flowed into it (a cut, usually)."""
    node_id, new = b.add_node(
        ("rec", w.index),
        UNTRACKED,
        w.op,
        name=b.names.get(id(target)),
        shape=_shape(target),
        line=w.line,
    )
    if new:
        for r in w.inputs:
            if r.requires_grad:
                b.add_edge(b.source_node(r), node_id)
        b.untracked_inputs(w.inputs, node_id)
        b.drain()
    return node_id


def _index(recorder: Recorder | None) -> tuple[dict[int, Record], dict[int, bool]]:
    """grad_fn -> its forward record, and for each record (by index) whether a cut lies
    behind it. Every producer of a listed record is listed before it."""
    by_grad_fn: dict[int, Record] = {}
    reaches: dict[int, bool] = {}
    if recorder is None:
        return by_grad_fn, reaches
    by_grad_fn.update(recorder.inner)
    for rec in recorder.records:
        for out in rec.outputs:
            if out.grad_fn is not None:
                by_grad_fn[id(out.grad_fn)] = rec
        hit = bool(rec.cut_sources)
        if not hit:
            hit = any(
                r.producer is not None and reaches[r.producer.index]
                for r in rec.inputs
                if not r.requires_grad
            )
        reaches[rec.index] = hit
    return by_grad_fn, reaches


def capture(
    roots: list[tuple[str | None, Any]],
    recorder: Recorder | None = None,
    names: dict[int, str] | None = None,
    options: Options | None = None,
    error: dict[str, object] | None = None,
    failed_fn: Any = None,
) -> Graph:
    """The graph model for `roots` (name, tensor) pairs. `names` maps id(tensor) to the
    script's names for it; `recorder` supplies the cuts (without it: torchviz's graph).
    `error` is the script's failure ({"message", "line"}); `failed_fn` the backward node
    that raised it, when known (the error then names its node id)."""
    with paused_gc():
        return _capture(roots, recorder, names, options, error, failed_fn)


def _capture(
    roots: list[tuple[str | None, Any]],
    recorder: Recorder | None,
    names: dict[int, str] | None,
    options: Options | None,
    error: dict[str, object] | None,
    failed_fn: Any,
) -> Graph:
    b = _Builder(names=dict(names or {}), options=options or Options(), recorder=recorder)
    b.by_grad_fn, b.reaches_cut = _index(recorder)
    for name, tensor in roots:
        b.root_ids.add(id(tensor))
        if name is not None:
            b.names.setdefault(id(tensor), name)
    # Mark what the roots' backward visits before drawing, so kinds are right.
    _mark_tracked(b, [t for _, t in roots])
    root_ids = []
    for _, tensor in roots:
        made = recorder.producer_of(tensor) if recorder is not None else None
        out_id = b.tensor_node("output", tensor, OUTPUT, made.line if made else None)
        root_ids.append(out_id)
        if tensor.grad_fn is not None:
            b.add_edge(b.function_node(tensor.grad_fn, FUNCTION), out_id)
        elif recorder is not None and not tensor.requires_grad:
            b.untracked_inputs((recorder.snapshot(tensor),), out_id)
        b.drain()
        _draw_base(b, tensor, out_id)
    if recorder is not None:
        _draw_writes(b, recorder, [t for _, t in roots])
    if error is not None and failed_fn is not None and ("fn", id(failed_fn)) in b.ids:
        error = {**error, "node": b.ids[("fn", id(failed_fn))]}
    return Graph(nodes=b.nodes, edges=b.edges, roots=root_ids, error=error)


def _draw_base(b: _Builder, tensor: Any, out_id: str) -> None:
    """A root that is a view: its `_base` with an edge to it (drawn dotted), and the base's
    own history, as torchviz's make_dot draws them. A base that is a drawn leaf (`a[0]` of a
    parameter) is that leaf's box, as torchviz's one DOT node for the same tensor."""
    base = getattr(tensor, "_base", None)
    if base is None:
        return
    b.keep.append(base)
    leaf = b.ids.get(("leaf", id(base)))
    if leaf is not None:
        b.add_edge(leaf, out_id)
        return
    base_id = b.tensor_node("base", base, BASE)
    fn = base.grad_fn
    if fn is not None:
        b.add_edge(b.function_node(fn, FUNCTION if id(fn) in b.tracked else UNTRACKED), base_id)
        b.drain()
    b.add_edge(base_id, out_id)


def _mark_tracked(b: _Builder, roots: list[Any]) -> None:
    stack = [t.grad_fn for t in roots if t.grad_fn is not None]
    while stack:
        fn = stack.pop()
        if id(fn) in b.tracked:
            continue
        b.tracked.add(id(fn))
        b.keep.append(fn)
        if hasattr(fn, "variable"):
            b.tracked.add(id(fn.variable))
        for child, _ in getattr(fn, "next_functions", ()):
            if child is not None and id(child) not in b.tracked:
                stack.append(child)
