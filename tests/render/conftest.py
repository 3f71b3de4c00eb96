"""Renderer test helpers: golden files (regenerate with `UPDATE_GOLDEN=1 pytest tests/render`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture
def golden():
    """golden(name, text): compare with tests/render/golden/<name>, or rewrite it when
    UPDATE_GOLDEN=1 is set."""

    def check(name: str, text: str) -> None:
        path = GOLDEN / name
        if os.environ.get("UPDATE_GOLDEN") == "1":
            path.write_text(text, encoding="utf-8")
        assert path.exists(), f"missing golden file {path}: run UPDATE_GOLDEN=1 pytest tests/render"
        assert text == path.read_text(encoding="utf-8")

    return check
