"""torch.save / torch.load of whole nn.Modules: layers are pickled by reference under torch's
class names (torch.nn.modules.linear.Linear, ...) with torch's module state, so a model saved
here loads in real torch and one saved by torch loads here (a user's class: when it imports
the same way on both sides); weights_only=True refuses a module with torch's error."""

from __future__ import annotations

import io
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from detachviz import nn
from detachviz import torch as T

REPO = Path(__file__).resolve().parents[1]

MODEL = """import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
        self.register_buffer("scale", torch.full((2,), 0.5))

    def forward(self, x):
        return self.body(x) * self.scale
"""
SAVE = """import sys
import torch
from mymodel import Net

torch.manual_seed(0)
torch.save({"model": Net(), "epoch": 3}, sys.argv[1])
"""
LOAD = """import sys
import torch

ckpt = torch.load(sys.argv[1], weights_only=False)
m = ckpt["model"]
print(type(m).__module__, type(m).__name__, ckpt["epoch"], m.training)
print(m)
print(m(torch.ones(2, 3)))
print([(k, tuple(v.shape)) for k, v in m.state_dict().items()])
"""


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _run(tmp_path: Path, ours: bool, script: str, arg: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONHASHSEED="0")
    cmd = [sys.executable, "-m", "detachviz", "run"] if ours else [sys.executable]
    proc = subprocess.run(
        [*cmd, script, arg], cwd=tmp_path, env=env, capture_output=True, text=True, check=True
    )
    return proc.stdout


@pytest.mark.parametrize("saver_is_ours", [True, False])
def test_a_users_model_crosses_between_torch_and_detachviz(torch, tmp_path, saver_is_ours):
    (tmp_path / "mymodel.py").write_text(MODEL, encoding="utf-8")
    (tmp_path / "save_it.py").write_text(SAVE, encoding="utf-8")
    (tmp_path / "load_it.py").write_text(LOAD, encoding="utf-8")
    _run(tmp_path, saver_is_ours, "save_it.py", "model.pt")
    crossed = _run(tmp_path, not saver_is_ours, "load_it.py", "model.pt")
    same_side = _run(tmp_path, saver_is_ours, "load_it.py", "model.pt")
    assert crossed == same_side
    assert crossed.startswith("mymodel Net 3 True\nNet(\n  (body): Sequential(")


def test_builtin_layers_are_written_under_torchs_names(torch):
    T.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Dropout(0.25))
    model.eval()
    buf = io.BytesIO()
    T.save(model, buf)
    buf.seek(0)
    theirs = torch.load(buf, weights_only=False)
    assert type(theirs) is torch.nn.Sequential
    assert [type(m) for m in theirs] == [torch.nn.Linear, torch.nn.ReLU, torch.nn.Dropout]
    assert theirs.training is False and theirs[2].p == 0.25
    assert type(theirs[0].weight) is torch.nn.Parameter
    assert theirs[0].weight.tolist() == model[0].weight.tolist()
    x = [[1.0, -2.0]]
    assert theirs(torch.tensor(x)).tolist() == model(T.tensor(x)).tolist()


def test_a_torch_model_loads_here_as_detachviz_layers(torch, tmp_path):
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Sigmoid())
    path = tmp_path / "m.pt"
    torch.save(theirs, path)
    ours = T.load(path, weights_only=False)
    assert type(ours) is nn.Sequential and type(ours[0]) is nn.Linear
    assert type(ours[0].weight) is nn.Parameter and ours[0].weight.requires_grad
    x = [[0.5, -1.0]]
    out = ours(T.tensor(x))
    assert out.tolist() == theirs(torch.tensor(x)).tolist()
    out.sum().backward()
    assert ours[0].weight.grad is not None
    assert repr(ours) == repr(theirs)


def test_weights_only_refuses_a_module_with_torchs_error(torch):
    buf = io.BytesIO()
    T.save(nn.Linear(2, 2), buf)
    with pytest.raises(pickle.UnpicklingError) as ours:
        T.load(io.BytesIO(buf.getvalue()))
    with pytest.raises(pickle.UnpicklingError) as theirs:
        torch.load(io.BytesIO(buf.getvalue()))
    assert str(ours.value) == str(theirs.value)
    assert "GLOBAL torch.nn.modules.linear.Linear was not an allowed global" in str(ours.value)


def test_a_torch_transformer_layer_loads_here_and_runs(torch, tmp_path):
    # the layer's forward reads only attributes torch's own layer has (no state of ours)
    torch.manual_seed(0)
    theirs = torch.nn.TransformerDecoderLayer(4, 2, dim_feedforward=8, dropout=0.0).eval()
    path = tmp_path / "layer.pt"
    torch.save(theirs, path)
    ours = T.load(path, weights_only=False)
    assert type(ours) is nn.TransformerDecoderLayer
    x, mem = torch.randn(3, 1, 4), torch.randn(5, 1, 4)
    want = theirs(x, mem)
    got = ours(T.tensor(x.tolist()), T.tensor(mem.tolist()))
    assert got.shape == tuple(want.shape)
    assert max(abs(a - b) for a, b in zip(got.flatten().tolist(), want.flatten().tolist())) < 1e-5
