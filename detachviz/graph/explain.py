"""Gradient explanations: one row per leaf (and retain_grad tensor) saying why its grad is
what it is — above all, why it is None — read from the autograd graph and the op trace.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from detachviz.engine.trace import Record, Recorder
from detachviz.graph.vocab import COPY, CUT_BY_NAME, DETACH


@dataclass
class Row:
    """One line of `detachviz grad`. Field names are the documented --json interface."""

    name: str
    shape: list[int]
    requires_grad: bool
    grad: dict[str, Any] | None
    status: str  # ok | partly-cut | cut | unused | no-grad-required | non-leaf | not-run | wrong
    reason: str
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def grad_summary(grad: Any) -> dict[str, Any] | None:
    """Values for small tensors; shape/mean/norm/min/max otherwise (all JSON-friendly)."""
    if grad is None:
        return None
    values = grad.detach().numpy().astype("float64")
    out: dict[str, Any] = {"shape": list(values.shape)}
    if values.size <= 6:
        out["values"] = [round(float(v), 6) for v in values.reshape(-1)]
    if values.size:
        out.update(
            mean=round(float(values.mean()), 6),
            norm=round(float((values**2).sum() ** 0.5), 6),
            min=round(float(values.min()), 6),
            max=round(float(values.max()), 6),
        )
    return out


def _leaves_under(fn: Any) -> list[Any]:
    """Leaf tensors a backward node reaches (iteratively)."""
    out, seen, stack = [], set(), [fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if hasattr(node, "variable"):
            out.append(node.variable)
            continue
        stack.extend(c for c, _ in node.next_functions)
    return out


def upstream(recorder: Recorder, tensors: list[Any]) -> set[int]:
    """Indices of every record whose output flows (forward, any path) into `tensors`."""
    seen: set[int] = set()
    stack = [r for t in tensors if (r := recorder.producer_of(t)) is not None]
    while stack:
        rec = stack.pop()
        if rec.index in seen:
            continue
        seen.add(rec.index)
        stack.extend(r.producer for r in rec.inputs if r.producer is not None)
    return seen


@dataclass
class _Cut:
    record: Record
    leaves: list[Any]
    feeds_root: bool


def _cuts(recorder: Recorder | None, roots: list[Any]) -> list[_Cut]:
    if recorder is None:
        return []
    feeding = upstream(recorder, roots)
    cuts = []
    for rec in recorder.records:
        sources = rec.cut_sources
        if not sources:
            continue
        leaves: list[Any] = []
        for src in sources:
            leaves.extend([src.tensor] if src.grad_fn is None else _leaves_under(src.grad_fn))
        cuts.append(_Cut(rec, leaves, rec.index in feeding))
    return cuts


def _reachable_leaves(roots: list[Any]) -> set[int]:
    out: set[int] = set()
    for t in roots:
        if t.grad_fn is not None:
            out.update(id(v) for v in _leaves_under(t.grad_fn))
        elif t.requires_grad:
            out.add(id(t))
    return out


def explain(
    tensors: list[tuple[str, Any]],
    roots: list[Any],
    recorder: Recorder | None,
    source_lines: list[str],
    backward_ran: bool | str,
    root_names: list[str] | None = None,
) -> tuple[list[Row], list[str]]:
    """Rows for the named leaves and retain_grad tensors, and the names of the other
    non-leaf tensors (they keep no .grad; the report says so in one line).
    `backward_ran` is True, False, or "failed" when backward() raised. With several roots
    (a GAN's d_loss and g_loss), `root_names` lets each reason say which root is which."""
    reachable = _reachable_leaves(roots)
    cuts = _cuts(recorder, roots)
    per_root = []
    if root_names and len(roots) > 1:  # computed once, read for every row
        per_root = [
            _Root(
                name,
                _reachable_leaves([r]),
                upstream(recorder, [r]) if recorder is not None else set(),
            )
            for r, name in zip(roots, root_names)
        ]
    rows, non_leaves = [], []
    named = {id(t) for _, t in tensors} | {id(r) for r in roots}
    named |= {id(t.grad_fn) for _, t in tensors if t.grad_fn is not None}
    for name, t in tensors:
        if not t.is_leaf and not t.retains_grad:
            hidden = _hidden_leaf(t, named)
            if hidden is None:
                non_leaves.append(name)
            else:
                rows.append(_not_a_leaf(name, t, hidden, recorder, source_lines))
            continue
        shape = [int(s) for s in t.shape]
        row = Row(name, shape, bool(t.requires_grad), grad_summary(t.grad), "", "")
        if t.requires_grad:
            _classify(row, t, reachable, cuts, source_lines, backward_ran)
            if per_root and t.is_leaf and row.status != "not-run":
                _per_root(row, t, per_root, cuts, source_lines)
        else:
            _no_grad_required(row, t, recorder, cuts, source_lines)
        rows.append(row)
    return rows, non_leaves


# How many ops may stand between a parameter-looking tensor and the leaf it was made from
# (`randn(..., requires_grad=True) * 0.01`, `.t()`, `.double()`, `- 0.5`).
_PARAMETER_CHAIN = 4


def _hidden_leaf(t: Any, named: set[int]) -> Any:
    """The unnamed leaf a named non-leaf was made from by a short chain of ops on constants
    (`w = torch.randn(3, 2, requires_grad=True) * 0.01`): the script meant `t` to be the
    parameter, but its gradient goes to that leaf and `t.grad` stays None. None otherwise.
    `named` holds the ids of the script's named tensors and of their grad_fns: a chain
    through another named tensor (`h = x @ w`) is an ordinary intermediate."""
    fn = t.grad_fn
    for _ in range(_PARAMETER_CHAIN):
        inputs = [c for c, _ in getattr(fn, "next_functions", ()) if c is not None]
        if len(inputs) != 1:
            return None
        fn = inputs[0]
        if hasattr(fn, "variable"):
            return fn.variable if id(fn.variable) not in named else None
        if id(fn) in named:
            return None
    return None


def _not_a_leaf(name: str, t: Any, leaf: Any, recorder: Recorder | None, lines: list[str]) -> Row:
    made = recorder.producer_of(t) if recorder is not None else None
    row = Row(name, [int(s) for s in t.shape], True, None, "non-leaf", "")
    where = _where(made, lines) if made is not None else ""
    row.line = made.line if made is not None else None
    got = "receives the gradient" if leaf.grad is not None else "would receive the gradient"
    row.reason = (
        f"not a leaf: computed{where} from an unnamed leaf, which {got}; {name}.grad stays "
        f"None. Make {name} the leaf: {_leaf_fix(name, made, lines)}"
    )
    return row


def _leaf_fix(name: str, made: Record | None, lines: list[str]) -> str:
    """The script's own line rewritten to make `name` the leaf, when it is a plain
    `name = ...requires_grad=True...` assignment; otherwise the idiom in words."""
    code = lines[made.line - 1].strip() if made and made.line and made.line <= len(lines) else ""
    target, eq, expr = code.partition("=")
    flag = next((f for f in (", requires_grad=True", "requires_grad=True, ") if f in expr), None)
    if eq and target.strip() == name and flag and not expr.startswith("="):
        return f"`{name} = ({expr.strip().replace(flag, '')}).requires_grad_()`"
    return f"create it without requires_grad and call `{name}.requires_grad_()` on the result"


def _no_grad_required(
    row: Row, t: Any, recorder: Recorder | None, cuts: list[_Cut], lines: list[str]
) -> None:
    row.status = "no-grad-required"
    row.reason = "requires_grad=False: created without requires_grad=True"
    if type(t).__name__ == "Parameter":  # nn.Parameter requires grad unless turned off
        row.reason = "requires_grad=False: a frozen parameter (its requires_grad was turned off)"
        return
    if recorder is None:
        return
    behind = upstream(recorder, [t])
    made_by = [c for c in cuts if c.record.index in behind]
    if made_by:
        rec = made_by[-1].record
        row.reason = f"requires_grad=False: computed through {_mechanism(rec)}{_where(rec, lines)}"
        row.line = rec.line
    elif behind:
        row.reason = "requires_grad=False: computed only from tensors that do not require grad"


@dataclass
class _Root:
    """One root's name, the leaves its backward reaches, and the records that feed it."""

    name: str
    reachable: set[int]
    feeding: set[int]


def _per_root(row: Row, t: Any, roots: list[_Root], cuts: list[_Cut], lines: list[str]) -> None:
    """Say which root a leaf gets its gradient from, and from which root it is cut."""
    reach, cut_from = [], []
    for root in roots:
        name, feeding = root.name, root.feeding
        if id(t) in root.reachable:
            reach.append(name)
            continue
        first = next(
            (c for c in cuts if c.record.index in feeding and any(x is t for x in c.leaves)), None
        )
        if first is not None:
            cut_from.append(f"cut from {name} by {_mechanism(first.record)}")
            cut_from[-1] += _where(first.record, lines)
            row.line = first.record.line
    if not cut_from:
        if reach:
            row.reason = f"gradient flows from {', '.join(reach)}"
        return
    row.status = "partly-cut" if reach else "cut"
    got = f"gradient from {', '.join(reach)}; " if reach else ""
    row.reason = got + "; ".join(cut_from)


def _where(rec: Record, lines: list[str]) -> str:
    if rec.line is None:
        return ""
    code = lines[rec.line - 1].strip() if 0 < rec.line <= len(lines) else ""
    return f" at line {rec.line}" + (f" (`{code}`)" if code else "")


def _mechanism(rec: Record) -> str:
    cut = CUT_BY_NAME[rec.cut or DETACH]
    if cut.name == COPY and rec.op != "tensor":
        return f"{rec.op}(...)"  # new_tensor(...), as the script spelled the copy
    return cut.spelling


def _classify(
    row: Row, t: Any, reachable: set[int], cuts: list[_Cut], lines: list[str], ran: bool | str
) -> None:
    mine = [c for c in cuts if any(leaf is t for leaf in c.leaves)]
    mine.sort(key=lambda c: (not c.feeds_root, c.record.index))
    first = mine[0] if mine else None
    if not t.is_leaf:  # a retain_grad() tensor
        row.status, row.reason = "ok", "non-leaf with retain_grad(): gradient kept"
        if t.grad is None:
            row.status, row.reason = "cut" if first else "unused", "retain_grad(), but no gradient"
        return
    if ran == "failed" and t.grad is None:
        row.status, row.reason = "not-run", "backward() raised before reaching it (see below)"
        return
    if not ran:
        row.status, row.reason = "not-run", "backward not called"
        return
    if id(t) in reachable:
        if t.grad is None:
            row.status = "not-run"
            row.reason = (
                "on the root's graph, but .grad is None: backward() did not finish "
                "(an error the script caught?) or a hook dropped the gradient"
            )
        elif first is not None and first.feeds_root:
            row.status = "partly-cut"
            feeding = [c for c in mine if c.feeds_root]
            n = len(feeding)
            how = _mechanism(first.record) + _where(first.record, lines)
            others: list[str] = []
            for c in feeding[1:]:
                text = f"{_mechanism(c.record)} at line {c.record.line}"
                if c.record.line != first.record.line and text not in others:
                    others.append(text)
            row.reason = (
                f"gradient flows, but {n} path{'s' if n > 1 else ''} to the root "
                f"{'are' if n > 1 else 'is'} cut, by {how}"
                + (f", {', '.join(others[:3])}" if others else "")
                + "; that share is not in .grad"
            )
            row.line = first.record.line
        else:
            row.status, row.reason = "ok", "gradient flows from the root"
        return
    if first is not None:
        row.status = "cut"
        row.line = first.record.line
        verb = CUT_BY_NAME[first.record.cut or DETACH].verb
        row.reason = f"{verb} {_mechanism(first.record)}{_where(first.record, lines)}"
        also = [c for c in mine[1:] if c.feeds_root == first.feeds_root][:3]
        if also:
            row.reason += "; also " + ", ".join(
                f"{_mechanism(c.record)} at line {c.record.line}" for c in also
            )
        if not first.feeds_root:
            row.reason += "; and that branch does not reach the root either"
        return
    row.status, row.reason = "unused", "not used by the root"
