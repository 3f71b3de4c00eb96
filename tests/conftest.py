"""Shared fixtures: write a script to a temp dir and run or capture it."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

# The oracle is torch's AVX2 kernels, the ones detachviz reproduces (docs/semantics.md, "CPU
# kernels"): on an AVX-512 host torch would pick AVX-512 kernels for a few ops (sigmoid, gelu,
# linspace), so the tests ask it for AVX2, before anything imports torch (the scripts the
# oracle runs under real torch inherit it).
os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")


@pytest.fixture
def script(tmp_path: Path):
    """script("code", name="s.py") -> Path of a dedented script in a temp folder."""

    def make(code: str, name: str = "s.py") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(code).lstrip(), encoding="utf-8")
        return path

    return make
