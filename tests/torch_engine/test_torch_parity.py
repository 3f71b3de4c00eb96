"""Parity: every script of the graph and `grad` tests (and the example galleries) gives the
same graph model (up to node ids) and the same `grad` report (up to float rounding) on the
installed PyTorch as on detachviz's engine."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("torch")

import torch_parity as parity  # noqa: E402 - after the skip: the corpus runs real torch

_CORPUS = Path(tempfile.mkdtemp(prefix="dvz-parity-"))
atexit.register(shutil.rmtree, _CORPUS, True)
SCRIPTS = parity.corpus(_CORPUS)


def _id(path: Path) -> str:
    return path.parent.name if path.name == "s.py" else path.stem


def test_the_corpus_holds_every_test_script():
    # one script per test of tests/graph and test_gradreport, plus the example folders
    assert len(SCRIPTS) >= 50
    assert any(p.name == "detached.py" for p in SCRIPTS)
    assert any(p.name == "gan_step.py" for p in SCRIPTS)


# Known engine differences, each a bug to fix (strict: the mark fails once it is fixed).
KNOWN: dict[str, str] = {}


def _known(path: Path) -> list[pytest.MarkDecorator]:
    reason = KNOWN.get(_id(path))
    return [pytest.mark.xfail(reason=reason, strict=True)] if reason else []


@pytest.mark.parametrize("path", [pytest.param(p, marks=_known(p)) for p in SCRIPTS], ids=_id)
def test_same_graph_model_on_both_engines(path):
    ours = parity.graph_json(path, "detachviz")
    real = parity.graph_json(path, "torch")
    assert real == ours


@pytest.mark.parametrize("path", SCRIPTS, ids=_id)
def test_same_grad_report_on_both_engines(path):
    ours = parity.grad_json(path, "detachviz")
    real = parity.grad_json(path, "torch")
    assert real == ours
