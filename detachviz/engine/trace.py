"""The op recorder: a light trace of every op and every cut, kept only while someone records.

Tracing is separate from differentiation. The engine calls `record()` at each op when
`RECORDER` is set; when nothing records, the cost is one `if RECORDER is not None`.
The recorder knows nothing of drawing: graph capture reads its records afterwards.

A record keeps *snapshots* of its tensors (`Ref`): the tensor object plus its `grad_fn`,
`requires_grad` and producing record as they were at that moment. That is what makes
`y.detach_()` and in-place ops traceable: the tensor object lives on, its history changes.
"""

from __future__ import annotations

import sys
from typing import Any

# The cut mechanisms, as they appear in graph edges and in `detachviz grad` reasons.
CUTS = ("detach", "detach_", "data", "no_grad", "copy")


class Ref:
    """A tensor as it was when an op used or produced it."""

    __slots__ = ("tensor", "grad_fn", "requires_grad", "producer", "version")

    def __init__(self, tensor: Any, producer: Record | None) -> None:
        self.tensor = tensor
        self.grad_fn = tensor.grad_fn
        self.requires_grad = tensor.requires_grad
        self.producer = producer
        self.version = tensor._version


class Record:
    """One op: its name, input and output snapshots, and where in the script it ran.

    `op` is the forward name (`pow`, `mul`, `detach`, `data`, `tensor`, `add_`, ...).
    `cut` is one of CUTS when the op severs gradient flow from a value that requires grad
    (`no_grad` is set for any op run with grad mode off on an input that requires grad).
    `inplace` is true for ops that write into their first input (`add_`, `zero_`, `x[i] = v`).
    `backward` and `autograd.grad` are recorded too (inputs: the roots, no outputs), so
    capture knows what the script differentiated.
    """

    __slots__ = (
        "index", "op", "inputs", "outputs", "cut", "line", "inplace", "grad_enabled", "saved"
    )  # fmt: skip

    def __init__(
        self,
        index: int,
        op: str,
        inputs: tuple[Ref, ...],
        outputs: tuple[Ref, ...],
        cut: str | None,
        line: int | None,
        inplace: bool,
        grad_enabled: bool,
    ) -> None:
        self.index = index
        self.op = op
        self.inputs = inputs
        self.outputs = outputs
        self.cut = cut
        self.line = line
        self.inplace = inplace
        self.grad_enabled = grad_enabled
        # What the op's backward node saved (SavedVariable objects), kept here because the
        # node frees them at backward; diagnosis needs them afterwards.
        self.saved: tuple[Any, ...] = ()

    def __repr__(self) -> str:
        return f"<Record #{self.index} {self.op} line={self.line} cut={self.cut}>"


class Recorder:
    """Collects records for one script run. `script` is the path whose lines we report."""

    def __init__(self, script: str | None = None) -> None:
        self.script = script
        self.records: list[Record] = []
        # id(tensor) -> the record that last wrote it; tensors stay alive through the records.
        self._producer: dict[int, Record] = {}
        self._alive: list[Any] = []

    def producer_of(self, tensor: Any) -> Record | None:
        return self._producer.get(id(tensor))

    def record(
        self,
        op: str,
        inputs: tuple[Any, ...],
        outputs: tuple[Any, ...],
        cut: str | None = None,
        inplace: bool = False,
    ) -> Record:
        """Record one op. Call *after* the outputs exist; for in-place ops the input
        snapshot must be taken before the write, so call `snapshot()` first and pass Refs."""
        from detachviz.engine.grad_mode import is_grad_enabled

        ins = tuple(x if isinstance(x, Ref) else Ref(x, self.producer_of(x)) for x in inputs)
        grad_enabled = is_grad_enabled()
        if cut is None and not grad_enabled and any(r.requires_grad for r in ins):
            cut = "no_grad"
        rec = Record(len(self.records), op, ins, (), cut, self.line(), inplace, grad_enabled)
        rec.outputs = tuple(Ref(t, rec) for t in outputs)
        if outputs and outputs[0].grad_fn is not None:
            rec.saved = tuple(getattr(outputs[0].grad_fn, "_saved_variables", None) or ())
        for t in outputs:
            if id(t) not in self._producer:
                self._alive.append(t)
            self._producer[id(t)] = rec
        for r in ins:
            self._alive.append(r.tensor)
        self.records.append(rec)
        return rec

    def snapshot(self, tensor: Any) -> Ref:
        """The tensor as it is now, for an op about to change it in place."""
        return Ref(tensor, self.producer_of(tensor))

    def line(self) -> int | None:
        """The line of the innermost frame that belongs to the script being run."""
        if self.script is None:
            return None
        frame = sys._getframe(2)
        while frame is not None:
            if frame.f_code.co_filename == self.script:
                return frame.f_lineno
            frame = frame.f_back
        return None


# The active recorder, or None. Set by the runner (and by tests) through `recording()`.
RECORDER: Recorder | None = None


class recording:  # noqa: N801 - used like a function: `with recording(script) as rec:`
    """Context manager that makes a fresh Recorder active."""

    def __init__(self, script: str | None = None) -> None:
        self.recorder = Recorder(script)
        self._previous: Recorder | None = None

    def __enter__(self) -> Recorder:
        global RECORDER
        self._previous = RECORDER
        RECORDER = self.recorder
        return self.recorder

    def __exit__(self, *exc: object) -> None:
        global RECORDER
        RECORDER = self._previous
