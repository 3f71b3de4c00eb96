"""What a recording keeps of in-place writes, and when it lets one go.

An in-place write lives as long as the memory it wrote can be read: its target's version
counter lists it (engine/trace.py's `Recorder._keep` pins the target). A training loop's
optimizer writes into the same tensors every step, and each write's input is its target as
the previous write left it, so without letting go every step's writes would stay.

Capture draws a write into a saved tensor, when the backward node that saved it is alive
and saved it before the write (a node made later saved the written value), and it walks
back through a value's writes only when a cut lies behind them. So a write that made no
backward node, has no cut behind it, is not its target's latest and has no live node
before it that saved the target's memory can never be drawn: its output snapshot forgets
it (as if the target came from nowhere, which capture treats alike), and nothing else keeps
it. Nodes only die, so this stays true. (A write through `.data` always has a cut behind
it: it is kept by its source.)

`wrote` decides that for the write a new one supersedes, when it is superseded, so a loop
keeps about one write per target; `compact` decides it for every write still kept, as a
backstop, when they pile up (a write kept because a live node had saved its target, say).
"""

from __future__ import annotations

import gc
import weakref
from typing import Any

from detachviz.graph import vocab

# NOTE: the recorder and its records (engine/trace.py, which imports this module) are typed
# Any here, as trace.py types tensors.
_weakref = weakref.ref

# Looking further back than this many records for a cut behind a superseded write leaves
# the decision to `compact`.
CUT_SEARCH_BUDGET = 64


def wrote(recorder: Any, rec: Any, target: Any) -> None:
    """Keep the in-place write `rec` into `target` (pinned by `rec`) as long as its memory
    can be read: while a tensor sharing the target's version counter lives (its views, what
    it was detached from) or, for a target reached through `.data` (and views of it), the
    `.data` source. Then let go of the write it supersedes if no drawing can show it."""
    recorder._writes.append(_weakref(rec))
    if len(recorder._writes) >= recorder._compact_writes_at:
        recorder._writes = [w for w in recorder._writes if w() is not None]
        if 2 * len(recorder._writes) >= recorder._compact_writes_at:  # not just dead ones
            compact(recorder)
        recorder._compact_writes_at = max(4096, 2 * len(recorder._writes))
    vc = target._vc
    writes = None
    if vc is not None:
        writes = getattr(vc, "_trace", None)
        if writes is None:
            vc._trace = writes = [rec]
        else:
            writes.append(rec)
    before = rec.inputs[0].producer
    producer = before
    while producer is not None and producer.op in vocab.VIEW_OPS:
        producer = producer.inputs[0].producer
    if producer is not None and producer.cut == vocab.DATA:
        # NOTE: `.data` has its own counter: the source's snapshot keeps the write (a
        # small cycle through the write's inputs, freed by the garbage collector)
        source = producer.inputs[0]
        source.anchored = (*getattr(source, "anchored", ()), rec)
    if before is not None and before.inplace and forgettable(recorder, before):
        before.outputs[0].producer = None
        if writes is not None and before in writes:
            writes.remove(before)


def _plain(w: Any) -> bool:
    """The rule's first part: the write is no detach_ and made no backward node."""
    return w.op != vocab.DETACH_ and bool(w.outputs) and w.outputs[0].grad_fn is w.inputs[0].grad_fn


def _cut_at(r: Any) -> bool:
    """Whether the op `r` itself cuts a value that requires grad."""
    return r.cut is not None and bool(r.cut_sources)


def _behind(r: Any) -> list[Any]:
    """The records behind `r` through its inputs that do not require grad (where capture
    looks for a cut behind a value)."""
    return [p for i in r.inputs if not i.requires_grad and (p := i.producer) is not None]


def forgettable(recorder: Any, w: Any) -> bool:
    """Whether no drawing can show the write `w`, which a later write into its target
    superseded (the module docstring's rule, for one write)."""
    if not _plain(w) or cut_behind(w) is not False:
        return False
    target = w.inputs[0]
    savers = recorder._savers  # (record index, weak node), in order
    while savers and savers[0][1]() is None:
        savers.popleft()
    address = None
    for index, node_ref in savers:  # a live node made before the write saved its target?
        if index >= w.index:
            break
        node = node_ref()
        if node is None:
            continue
        if address is None:
            address = target.tensor.untyped_storage().data_ptr()
        for sv in node._trace.saved:
            if sv.tensor is not None and sv.tensor.untyped_storage().data_ptr() == address:
                return False
    return True


def cut_behind(rec: Any, budget: int = CUT_SEARCH_BUDGET) -> bool | None:
    """Whether a cut lies behind `rec` through values that do not require grad (capture's
    rule, as `compact` finds it for every record); None when finding out would look at
    more than `budget` records. NOTE: a loop's writes are let go as they are superseded, so
    the history behind the next one stays short."""
    # NOTE: `_cut_at` and `_behind` written out: this runs at every write of a loop, and
    # the calls cost ~6% of tracing's overhead on the polynomial loop (callgrind)
    stack = [rec]
    seen = {id(rec)}
    while stack:
        r = stack.pop()
        if r.cut is not None and r.cut_sources:
            return True
        for i in r.inputs:
            if not i.requires_grad:
                p = i.producer
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    stack.append(p)
        budget -= 1
        if budget == 0 and stack:
            return None
    return False


def compact(recorder: Any) -> None:
    """Let go of every kept write no drawing can show (the module docstring's rule)."""
    # NOTE: a dead step's nodes are often cyclic garbage (a record and its output
    # snapshot point at each other) that would pass for live savers until collected
    gc.collect()
    writes = [w for r in recorder._writes if (w := r()) is not None]
    records = recorder.records
    reaches: dict[int, bool] = {}  # as capture's `_index`: a cut lies behind the record
    saved_at: dict[int, int] = {}  # storage address -> the first live node saving it
    for rec in records:  # in order: what lies behind a record comes before it
        reaches[rec.index] = _cut_at(rec) or any(reaches.get(p.index, False) for p in _behind(rec))
        for sv in rec.saved if rec._saved_raw is not None else ():
            if sv.tensor is not None:
                saved_at.setdefault(sv.tensor.untyped_storage().data_ptr(), rec.index)
    kept = []
    dropped: set[int] = set()
    counters: dict[int, Any] = {}
    for w in writes:
        target = w.inputs[0].tensor  # pinned by the write
        latest = getattr(target, "_trace", None)
        if (
            not _plain(w)
            or reaches.get(w.index, True)
            or (latest is not None and latest.producer is w)
            or saved_at.get(target.untyped_storage().data_ptr(), w.index + 1) < w.index
        ):
            kept.append(_weakref(w))
            continue
        w.outputs[0].producer = None
        dropped.add(id(w))
        if target._vc is not None:
            counters[id(target._vc)] = target._vc
    for vc in counters.values():  # the version counters list their writes too
        writes_into = getattr(vc, "_trace", None)
        if writes_into is not None:
            writes_into[:] = [x for x in writes_into if id(x) not in dropped]
    recorder._writes = kept
