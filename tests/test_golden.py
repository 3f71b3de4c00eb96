"""Golden DOT and JSON for the seed examples in docs/examples.

Regenerate after an intended change with `UPDATE_GOLDEN=1 pytest tests/test_golden.py`,
then read the diff before committing it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from detachviz.pipeline import Request, build

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).parent / "golden"
CASES = [(name, fmt) for name in ("attached", "detached") for fmt in ("dot", "json")]


@pytest.mark.parametrize(("name", "fmt"), CASES)
def test_seed_example_matches_golden(name, fmt, monkeypatch):
    monkeypatch.chdir(ROOT / "docs" / "examples")
    data, failure = build(f"{name}.py", Request(), fmt)
    assert failure == ""
    golden = GOLDEN / f"{name}.{fmt}"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_bytes(data)
    assert data.decode() == golden.read_text(encoding="utf-8")
