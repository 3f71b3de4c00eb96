"""Shared fixtures for the engine tests: the detachviz torch namespace and the real oracle."""

from __future__ import annotations

import pytest

import detachviz.torch as dvtorch


@pytest.fixture
def dv():
    return dvtorch


@pytest.fixture
def rt():
    return pytest.importorskip("torch")
