"""Shared fixtures: write a script to a temp dir and run or capture it."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest


@pytest.fixture
def script(tmp_path: Path):
    """script("code", name="s.py") -> Path of a dedented script in a temp folder."""

    def make(code: str, name: str = "s.py") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(code).lstrip(), encoding="utf-8")
        return path

    return make
