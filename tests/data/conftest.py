"""Fixtures for the torch.utils.data tests: our torch namespace and the real-torch oracle."""

from __future__ import annotations

import pytest


@pytest.fixture
def T():
    from detachviz import torch as T

    return T


@pytest.fixture
def torch():
    return pytest.importorskip("torch")
