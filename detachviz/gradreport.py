"""The `detachviz grad` report: run the script, call backward() if it did not, explain
every leaf's gradient, and diagnose in-place mistakes that torch reports only by shape.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from detachviz.errors import EXIT_FAILED, RootError
from detachviz.graph.diagnose import Diagnosis, diagnose_data_writes, diagnose_inplace_error
from detachviz.graph.explain import Row, explain
from detachviz.graph.vocab import DIFFERENTIATIONS
from detachviz.runner import (
    backward_roots,
    differentiated,
    final_tensors,
    named_tensors,
    pick_roots,
    run_script,
)


@dataclass
class Report:
    script: str
    root: str | None
    backward_by: str  # "script" | "detachviz" | "none"
    rows: list[Row] = field(default_factory=list)
    diagnoses: list[Diagnosis] = field(default_factory=list)
    non_leaves: list[str] = field(default_factory=list)  # named, no retain_grad: no .grad
    notes: list[str] = field(default_factory=list)  # caveats to print above the table
    error_text: str = ""  # the script's own traceback, when it failed otherwise
    exit_code: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": 1,
            "script": self.script,
            "root": self.root,
            "backward_called_by": self.backward_by,
            "leaves": [r.to_dict() for r in self.rows],
            "non_leaves": list(self.non_leaves),
            "notes": list(self.notes),
            "diagnoses": [d.to_dict() for d in self.diagnoses],
            "error": self.error_text.strip().splitlines()[-1] if self.error_text else None,
        }

    def to_json(self) -> str:
        """Strict JSON (RFC 8259): a non-finite number is the string "NaN", "Infinity" or
        "-Infinity" (bare NaN is not JSON, and most parsers other than Python's refuse it)."""
        return json.dumps(_finite(self.to_dict()), indent=2, allow_nan=False) + "\n"


def _finite(value: Any) -> Any:
    """`value` with every non-finite float spelled as a string (a report is a small tree)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _scalar_root(result: Any, requested: str | None) -> tuple[str | None, Any]:
    if requested:
        return pick_roots(result, [requested])[0]
    scalars = [(k, t) for k, t in final_tensors(result.namespace) if t.numel() == 1]
    if len(scalars) == 1:
        return scalars[0]
    if not scalars:
        raise RootError(
            "no scalar tensor that requires grad to call backward() on: "
            "call backward() in the script, or name a root with --root"
        )
    names = ", ".join(k for k, _ in scalars)
    raise RootError(f"several scalar outputs ({names}): pick one with --root NAME")


def grad_report(script: str, root: str | None = None, engine: str | None = None) -> Report:
    """Run `script` on `engine` (engines.py) and explain its gradients (raises RootError /
    ScriptNotFound / UserError)."""
    from detachviz.progress import report

    report(f"running {script}")
    result = run_script(script, record=True, quiet=True, engine=engine)
    return report_for(result, result.lines, root, script)


def report_for(result: Any, lines: list[str], root: str | None, script: str) -> Report:
    """Explain the gradients of a finished run (a `RunResult`, recorded); `lines` are its
    source lines, `script` how the report names it."""
    named = named_tensors(result.namespace)
    names = {id(t): n for n, t in named}
    report = Report(script=script, root=None, backward_by="none")
    error = result.error
    roots = differentiated(result)
    if roots:
        report.backward_by = "script"
        if root:
            chosen = pick_roots(result, [root])[0][1]
            if not any(chosen is r for r in roots):
                report.notes.append(
                    f"the script called backward() on {_describe(roots, named)}, so .grad "
                    f"holds that gradient; statuses say what reaches {root}"
                )
            roots = [chosen]
    elif error is None:
        name, tensor = _scalar_root(result, root)
        roots = [tensor]
        report.backward_by = "detachviz"
        try:
            tensor.backward()
        except RuntimeError as e:
            error = e
            result.error_text = f"RuntimeError: {e}\n"
            result.exit_code = EXIT_FAILED
    if roots:
        report.root = _describe(roots, named, result.recorder)
    if result.exited:  # sys.exit(3), os._exit(1): a failed run, as python's exit code says
        report.notes.append(f"the script ended with {result.exited}")
        report.exit_code = EXIT_FAILED
    if error is not None:
        report.error_text = result.error_text
        report.exit_code = EXIT_FAILED
        found = diagnose_inplace_error(error, result.recorder, names, lines)
        if found is not None:
            report.diagnoses.append(found)
    report.diagnoses.extend(diagnose_data_writes(result.recorder, roots, names, lines))
    root_ids = {id(r) for r in roots}
    tensors = [(n, t) for n, t in named if id(t) not in root_ids]
    ran: bool | str = report.backward_by != "none"
    if error is not None:
        ran = "failed" if ran or backward_roots(result.recorder) else False
    root_names = [_describe([r], named, result.recorder) for r in roots]
    report.rows, report.non_leaves = explain(
        tensors, roots, result.recorder, lines, ran, root_names
    )
    for d in report.diagnoses:
        for row in report.rows:
            if d.kind == "data-write" and row.name == d.variable and row.grad is not None:
                row.status = "wrong"
                row.reason = (
                    f"computed from values changed through .data at line {d.modified_line} "
                    "after they were saved: silently wrong (see the warning below)"
                )
                row.line = d.modified_line
    return report


def _describe(roots: list[Any], named: list[tuple[str, Any]], recorder: Any = None) -> str:
    """The roots as the script names them; an unnamed one by the line that called backward."""
    names = {id(t): n for n, t in named}
    parts = []
    for t in roots:
        if id(t) in names:
            parts.append(names[id(t)])
            continue
        line = None
        for rec in recorder.records if recorder is not None else ():
            if rec.op in DIFFERENTIATIONS and any(r.tensor is t for r in rec.inputs):
                line = rec.line
        parts.append(f"the tensor differentiated at line {line}" if line else "an unnamed tensor")
    return ", ".join(parts)
