"""In-place diagnoses: what torch's "modified by an inplace operation" error leaves out
(which variable, which op saved it, which in-place op changed it), and the `.data` writes
torch does not catch at all (they silently give wrong gradients).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from detachviz.engine.trace import Record, Recorder
from detachviz.graph.vocab import DATA, VIEW_OPS


@dataclass
class Diagnosis:
    """One finding. kind: inplace-error | data-write. Lines are 1-based script lines."""

    kind: str
    message: str
    variable: str | None = None
    saved_by: str | None = None
    saved_line: int | None = None
    modified_by: str | None = None
    modified_line: int | None = None
    fixes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _code(lines: list[str], line: int | None) -> str:
    if line is None or not 0 < line <= len(lines):
        return ""
    return lines[line - 1].strip()


def _at(lines: list[str], line: int | None) -> str:
    code = _code(lines, line)
    return f"line {line}" + (f" (`{code}`)" if code else "") if line else "an unknown line"


def _record_of(recorder: Recorder, node: Any) -> Record | None:
    for rec in recorder.records:
        if any(out.grad_fn is node for out in rec.outputs):
            return rec
    return None


def _shares_storage(a: Any, b: Any) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _name(names: dict[int, str], tensor: Any) -> str:
    return names.get(id(tensor)) or "a tensor of shape " + str(list(tensor.shape))


def diagnose_inplace_error(
    error: BaseException, recorder: Recorder | None, names: dict[int, str], lines: list[str]
) -> Diagnosis | None:
    """Explain torch's saved-tensor version error, when the engine says what it was."""
    if recorder is not None:
        saved, node = recorder.saved_behind(error)
    else:
        saved, node = getattr(error, "saved_variable", None), getattr(error, "node", None)
    if saved is None or node is None:
        return None
    tensor = saved.tensor
    d = Diagnosis("inplace-error", str(error), variable=_name(names, tensor))
    d.saved_by = node.name()
    if recorder is None:
        d.fixes = _fixes(d, None, names, lines)
        return d
    saving = _record_of(recorder, node)
    d.saved_line = saving.line if saving is not None else None
    after = saving.index if saving is not None else -1
    modifier = next(
        (
            rec
            for rec in recorder.records
            if rec.inplace
            and rec.index > after
            and recorder.shares_version_counter(rec.inputs[0].tensor, tensor)
        ),
        None,
    )
    if modifier is not None:
        d.modified_by = f"{modifier.op}() on {_name(names, modifier.inputs[0].tensor)}"
        d.modified_line = modifier.line
    d.fixes = _fixes(d, modifier, names, lines)
    return d


# Out-of-place spellings of in-place ops, for the fix suggestion.
OUT_OF_PLACE = {
    "zero_": "torch.zeros_like({t})",
    "fill_": "torch.full_like({t}, value)",
    "copy_": "source.clone()",
    "add_": "{t} + other",
    "sub_": "{t} - other",
    "mul_": "{t} * other",
    "div_": "{t} / other",
    "pow_": "{t} ** exponent",
    "clamp_": "{t}.clamp(min, max)",
}


def _fixes(
    d: Diagnosis, modifier: Record | None, names: dict[int, str], lines: list[str]
) -> list[str]:
    var = d.variable or "the tensor"
    fixes = []
    if modifier is not None:
        target = _name(names, modifier.inputs[0].tensor)
        made = modifier.inputs[0].producer
        if made is not None and made.line is not None and made.op in VIEW_OPS | {DATA}:
            fixes.append(
                f"make {target} a copy where it is created, at {_at(lines, made.line)}: "
                "add `.clone()` so the in-place op writes to its own memory"
            )
        else:
            fixes.append(f"clone before the in-place op: `{target} = {target}.clone()`")
        form = OUT_OF_PLACE.get(modifier.op)
        if form:
            fixes.append(
                f"or use the out-of-place form: `{target} = {form.format(t=target)}` "
                f"instead of {modifier.op}()"
            )
    fixes.append(f"or call backward() before {var} is changed")
    return fixes


def _data_source(rec: Record) -> Any:
    """If `rec` writes into a value reached through `.data` (maybe via views), its source."""
    ref = rec.inputs[0] if rec.inputs else None
    while ref is not None and ref.producer is not None:
        prod = ref.producer
        if prod.cut == DATA:
            return prod.inputs[0].tensor
        if prod.op not in VIEW_OPS or not prod.inputs:
            return None
        ref = prod.inputs[0]
    return None


def diagnose_data_writes(
    recorder: Recorder | None, roots: list[Any], names: dict[int, str], lines: list[str]
) -> list[Diagnosis]:
    """Warn about in-place writes through `.data` to a tensor saved for the roots' backward."""
    if recorder is None:
        return []
    from detachviz.graph.explain import upstream

    feeding = upstream(recorder, roots)
    savers = [r for r in recorder.records if r.saved and r.index in feeding]
    found = []
    for rec in recorder.records:
        source = _data_source(rec) if rec.inplace else None
        if source is None:
            continue
        hit = next(
            (
                (saver, sv)
                for saver in savers
                if saver.index < rec.index
                for sv in saver.saved
                if _shares_storage(sv.tensor, source)
            ),
            None,
        )
        if hit is None:
            continue
        saver, sv = hit
        var = _name(names, source)
        found.append(
            Diagnosis(
                "data-write",
                f"{var} was saved for backward by {sv.node.name()} at {_at(lines, saver.line)}, "
                f"then changed in place through .data at {_at(lines, rec.line)}. torch does "
                "not notice (.data has its own version counter), so the gradient uses the new "
                "values and is silently wrong.",
                variable=var,
                saved_by=sv.node.name(),
                saved_line=saver.line,
                modified_by=f"{rec.op}() through .data",
                modified_line=rec.line,
                fixes=[
                    f"change {var} only after backward(), or in place under torch.no_grad() "
                    "without .data (torch then raises instead of using the new values)",
                    "or compute from a copy: `x.detach().clone()`",
                ],
            )
        )
    return found
