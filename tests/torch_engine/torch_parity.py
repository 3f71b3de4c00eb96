"""The parity corpus and comparisons: the scripts the project's graph and `grad` tests run,
and the graph model / grad report of one script under each engine, made comparable."""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# The test files whose scripts are the corpus (each test writes its script with the
# `script` fixture into its own tmp_path), and the folders of example scripts.
TEST_FILES = ("tests/graph/test_capture.py", "tests/test_gradreport.py")
SCRIPT_FOLDERS = ("docs/examples", "docs/gallery")


def corpus(into: Path) -> list[Path]:
    """Every script of the corpus, once each (by content), in a stable order. Runs the
    test files once with their temp folders kept under `into` to collect what they wrote."""
    base = into / "tests"
    into.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(
        [sys.executable, "-m", "pytest", *TEST_FILES, "-q", "-p", "no:cacheprovider",
         "-p", "no:warnings", "--basetemp", str(base), "-x", "--no-header"],
        cwd=ROOT, env=env, capture_output=True, check=False, timeout=600,
    )  # fmt: skip
    found = sorted(p for p in base.rglob("*.py") if not p.is_symlink() and "current" not in p.parts)
    for folder in SCRIPT_FOLDERS:
        found += sorted((ROOT / folder).glob("*.py"))
    seen: set[str] = set()
    out = []
    for p in found:
        digest = hashlib.sha256(p.read_bytes()).hexdigest()
        if digest not in seen:
            seen.add(digest)
            out.append(p)
    return out


def _node_key(n: dict[str, Any]) -> tuple:
    return (n["kind"], n["label"], n["name"], tuple(n["shape"] or ()), n["line"])


def canonical_graph(data: dict[str, Any]) -> dict[str, Any]:
    """The graph model without node ids: nodes and edges as sorted descriptions."""
    by_id = {n["id"]: _node_key(n) for n in data["nodes"]}
    error = dict(data["error"]) if data.get("error") else None
    if error and "node" in error:
        error["node"] = by_id.get(error["node"])
    return {
        "roots": [by_id[r] for r in data["roots"]],
        "nodes": sorted(by_id.values(), key=repr),
        "edges": sorted(
            (
                (by_id[e["source"]], by_id[e["target"]], e["cut"], e["line"], e["write"])
                for e in data["edges"]
            ),
            key=repr,
        ),  # fmt: skip
        "error": error,
    }


def _rounded(value: Any) -> Any:
    """Floats to 4 significant digits (float32 sums differ in their last digits)."""
    if isinstance(value, float):
        return float(f"{value:.4g}") if math.isfinite(value) else value
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def canonical_report(data: dict[str, Any]) -> dict[str, Any]:
    out = _rounded(data)
    out.pop("script", None)
    return out


def graph_json(script: Path, engine: str) -> dict[str, Any] | str:
    """The graph model of `script` as `render -f json --allow-errors` makes it (a failing
    script drawn up to its failure), or the failure's text."""
    from detachviz.errors import DetachvizError
    from detachviz.pipeline import Request, build

    cwd = os.getcwd()
    os.chdir(script.parent)
    try:
        request = Request(fmt="json", engine=engine, allow_errors=True)
        data, _ = build(script.name, request, "json")
    except DetachvizError as e:
        return f"{type(e).__name__}: {e}"
    finally:
        os.chdir(cwd)
    return canonical_graph(json.loads(data))


def grad_json(script: Path, engine: str) -> dict[str, Any] | str:
    from detachviz.errors import DetachvizError
    from detachviz.gradreport import grad_report

    cwd = os.getcwd()
    os.chdir(script.parent)
    try:
        report = grad_report(script.name, engine=engine)
    except DetachvizError as e:
        return f"{type(e).__name__}: {e}"
    finally:
        os.chdir(cwd)
    return canonical_report(json.loads(report.to_json()))
