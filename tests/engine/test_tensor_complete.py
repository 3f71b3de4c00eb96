"""Importing `detachviz.engine` alone yields the complete Tensor: a fresh process that imports
only the engine finds every Tensor attribute a process that imports the torch namespace (and
nn, optim) finds, including those once installed by later imports (std, isclose,
register_post_accumulate_grad_hook)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

LIST = """
import json, sys
{imports}
from detachviz.engine.tensor import Tensor
names = sorted(n for n in dir(Tensor) if not n.startswith("__") or n in vars(Tensor))
mods = sorted(m for m in sys.modules if m.startswith("detachviz"))
print(json.dumps({{"names": names, "modules": mods}}))
"""


def _tensor_attrs(imports: str) -> dict[str, list[str]]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", LIST.format(imports=imports)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=ROOT,
    )
    return json.loads(out.stdout)


def test_engine_alone_gives_every_tensor_method_the_torch_namespace_has() -> None:
    alone = _tensor_attrs("import detachviz.engine")
    full = _tensor_attrs("import detachviz.torch, detachviz.nn, detachviz.optim")
    assert not any(m.startswith(("detachviz.torch", "detachviz.nn")) for m in alone["modules"])
    assert sorted(set(full["names"]) - set(alone["names"])) == []
    for name in ("std", "isclose", "register_post_accumulate_grad_hook", "backward", "masked_fill"):
        assert name in alone["names"]


def test_any_engine_module_alone_gives_the_complete_tensor() -> None:
    # python imports the package first, so a single submodule import installs everything too
    alone = _tensor_attrs("import detachviz.engine.tensor")
    full = _tensor_attrs("import detachviz.torch")
    assert alone["names"] == full["names"]
