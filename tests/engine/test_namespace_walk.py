"""Unsupported stays clear: every public name of real torch's namespaces is either provided by
detachviz or refused with `AttributeError: <torch path> is not supported by detachviz` --
never another error, never an internal class name. Also reports the coverage per namespace
(`pytest -s` prints the table that docs/semantics.md quotes)."""

from __future__ import annotations

import importlib
import warnings
from typing import Any

import pytest

from detachviz.runner import COMPAT_MODULES

torch = pytest.importorskip("torch")

NAMESPACES = (
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.autograd",
    "torch.autograd.functional",
    "torch.autograd.graph",
    "torch.optim",
    "torch.linalg",
    "torch.utils.data",
    "torch.func",
    "torch.special",
)


def _ours(path: str) -> Any | None:
    target = COMPAT_MODULES.get(path)
    return None if target is None else importlib.import_module(target)


def _public(obj: Any) -> list[str]:
    return sorted(n for n in dir(obj) if not n.startswith("_"))


def _outcome(obj: Any, name: str) -> tuple[str, str]:
    """('ok', '') when the attribute reads, else (exception type, message)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            getattr(obj, name)
        except Exception as e:  # noqa: BLE001 - classifying every outcome is the point
            return type(e).__name__, str(e)
    return "ok", ""


def _walk(real: Any, ours: Any, prefix: str) -> tuple[int, int, list[str]]:
    """(implemented, total, problems) for every public name of `real` read on `ours`."""
    done, bad = 0, []
    names = _public(real)
    for name in names:
        kind, msg = _outcome(ours, name)
        if kind == "ok":
            done += 1
            continue
        if kind == "AttributeError" and msg == f"{prefix}.{name} is not supported by detachviz":
            continue
        real_kind, _ = _outcome(real, name)
        if real_kind == kind:  # torch itself raises reading it (x.imag on a real tensor)
            continue
        bad.append(f"{prefix}.{name}: {kind}: {msg}")
    return done, len(names), bad


def _cases() -> list[tuple[str, Any, Any, str]]:
    import detachviz.torch as dtorch

    rows = []
    for path in NAMESPACES:
        ours = _ours(path)
        if ours is not None:
            rows.append((path, importlib.import_module(path), ours, path))
    real_t = torch.zeros(2, 2, requires_grad=True)
    rows.append(("torch.Tensor", real_t, dtorch.zeros(2, 2, requires_grad=True), "Tensor"))
    nn = importlib.import_module(COMPAT_MODULES["torch.nn"])
    rows.append(("torch.nn.Module", torch.nn.Module(), nn.Module(), "torch.nn.Module"))
    return rows


CASES = _cases()


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_every_public_name_is_provided_or_refused_clearly(case: Any) -> None:
    _, real, ours, prefix = case
    _, _, bad = _walk(real, ours, prefix)
    assert bad == []


def test_the_tensor_names_refused_are_exactly_torchs_that_detachviz_lacks() -> None:
    """engine/tensor_api.py's table, both ways: each name is torch's, and reading it on a
    tensor gives the refusal (a name since provided would be a stale row)."""
    import detachviz.torch as dtorch
    from detachviz.engine.tensor_api import TORCH_TENSOR_LACKS

    real = set(_public(torch.zeros(1)))
    ours = dtorch.zeros(2, 2, requires_grad=True)
    assert sorted(TORCH_TENSOR_LACKS - real) == []
    stale = [n for n in TORCH_TENSOR_LACKS if _outcome(ours, n) != (
        "AttributeError", f"Tensor.{n} is not supported by detachviz")]  # fmt: skip
    assert stale == []


@pytest.mark.parametrize("path", [p for p in NAMESPACES if p not in COMPAT_MODULES])
def test_a_namespace_detachviz_lacks_is_refused_on_import(path: str) -> None:
    from detachviz.runner import _TorchModules

    with pytest.raises(ModuleNotFoundError, match=f"^{path} is not supported by detachviz"):
        _TorchModules().find_spec(path, None)


def test_coverage_report(capsys: pytest.CaptureFixture[str]) -> None:
    """Prints `namespace: provided/total (percent)`; a namespace detachviz lacks is 0."""
    lines = []
    for label, real, ours, prefix in CASES:
        done, total, _ = _walk(real, ours, prefix)
        lines.append((label, done, total))
    for path in NAMESPACES:
        if path not in COMPAT_MODULES:
            lines.append((path, 0, len(_public(importlib.import_module(path)))))
    with capsys.disabled():
        print()
        for label, done, total in lines:
            print(f"{label:22} {done:4d}/{total:<4d} ({100 * done / total:5.1f}%)")
    assert all(0 <= done <= total for _, done, total in lines)
    assert dict((lb, d) for lb, d, _ in lines)["torch.autograd"] > 0
