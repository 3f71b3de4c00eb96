"""The op families imported on first use (engine/deferred.py): `import torch` loads none of
them, every stand-in names a real function of its family, and a script sees no difference:
the same results, call forms (keywords, out=), names and attribute lists whether a family was
imported at start or by the first call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from detachviz.engine import deferred

ROOT = Path(__file__).resolve().parents[2]

FRESH = """
import importlib, json, sys
import detachviz.torch as torch
from detachviz.engine import deferred
loaded = sorted(f for f in deferred.DEFERRED if f"{deferred.PACKAGE}.{f}" in sys.modules)
rows = deferred.pending()
family = lambda name: importlib.import_module(f"{deferred.PACKAGE}.{name}")
missing = [r for r in rows if not hasattr(family(r[0]), r[1])]
deferred.load_all()
print(json.dumps({"loaded": loaded, "rows": len(rows), "missing": missing,
                  "left": deferred.pending()}))
"""

# first calls of deferred ops through every kind of place they are bound, with torch's call
# forms; EAGER runs them after importing every family
CALLS = """
import json
import detachviz.torch as torch
from detachviz.engine import deferred
if EAGER:
    deferred.load_all()
import detachviz.nn.functional as F
x = torch.tensor([[3.0, 1.0, 2.0], [0.5, -1.0, 4.0]], requires_grad=True)
out = torch.empty(2, 3)
torch.cumsum(x.detach(), dim=1, out=out)
s = torch.sort(x, dim=1, descending=True)
t = x.topk(k=2, dim=1)
g = torch.gather(x, 1, torch.tensor([[0], [2]]))
loss = (s.values.sum() + (t.values * t.values).sum() + g.sum() + torch.det(x[:, :2])
        + x.std(dim=1).sum() + torch._C._nn.mse_loss(x, torch.zeros(2, 3), 1)
        + F.pad(x, (1, 1)).sum())
loss.backward()
print(json.dumps({
    "out": out.tolist(), "sort": s.indices.tolist(), "topk": t.values.tolist(),
    "loss": round(loss.item(), 5), "grad": [round(v, 5) for v in x.grad.flatten().tolist()],
    "grad_fn": type(torch.det(x[:, :2]).grad_fn).__name__,
    "names": [torch.det.__name__, torch.Tensor.sort.__name__],
    "dir": sorted(dir(torch.Tensor)) == sorted(set(dir(torch.Tensor))),
    "has": [hasattr(torch, "cumsum"), hasattr(torch.Tensor, "topk"), hasattr(torch, "nope")],
}))
"""


def _run(code: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_import_torch_loads_no_deferred_family_and_every_row_is_real() -> None:
    got = _run(FRESH)
    assert got["loaded"] == []
    assert got["rows"] > 50  # the tables do name the deferred families
    assert got["missing"] == []  # each stand-in names a function its family has
    assert got["left"] == []  # importing the families replaced every stand-in


def test_first_calls_behave_as_with_the_family_imported_at_start() -> None:
    lazy = _run(CALLS.replace("EAGER", "False"))
    eager = _run(CALLS.replace("EAGER", "True"))
    assert lazy == eager
    assert lazy["grad_fn"] == "LinalgDetBackward0"
    assert lazy["names"] == ["det", "sort"] and lazy["has"] == [True, True, False]


def test_every_deferred_family_is_an_op_module() -> None:
    ops = ROOT / "detachviz" / "engine" / "ops"
    assert all((ops / f"{name}.py").is_file() for name in deferred.DEFERRED)
