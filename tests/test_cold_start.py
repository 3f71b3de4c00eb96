"""What a command loads: `detachviz render` of a plain script on a stderr that is no
terminal imports neither rich nor the pdf translator's XML parser; and the torch
submodules are the real modules, whichever a script touches first (a deferred-loading
attempt broke `F.relu` used before `nn`: nested lazy packages cannot load their parent)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROBE = """
import sys
from detachviz.cli import cli
try:
    cli.main(["render", sys.argv[1], "-o", sys.argv[2]], prog_name="detachviz")
except SystemExit as e:
    assert not e.code, e.code
print(sorted(m for m in sys.modules if m.split(".")[0] in ("rich", "xml")))
"""

SEED = """import torch
a = torch.ones(5, requires_grad=True)
b = a**3
c = a.detach() ** 6
(b + c).sum().backward()
"""

USES_F_FIRST = """import torch
import torch.nn.functional as F
assert F.relu(torch.tensor([-1.0, 2.0])).tolist() == [0.0, 2.0]
import torch.nn as nn
m = nn.Linear(2, 1)
assert type(nn).__name__ == "module" and nn is torch.nn and F is nn.functional
assert isinstance(m, torch.nn.Module)
F.mse_loss(m(torch.ones(3, 2)), torch.zeros(3, 1)).backward()
"""


def _render(tmp_path: Path, code: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "s.py"
    script.write_text(code)
    return subprocess.run(
        [sys.executable, "-c", PROBE, str(script), str(tmp_path / "out.svg")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )


def test_render_of_a_plain_script_loads_only_what_it_needs(tmp_path: Path) -> None:
    proc = _render(tmp_path, SEED)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"
    assert (tmp_path / "out.svg").read_text().count("<svg") == 1


def test_functional_used_before_nn_is_the_real_module(tmp_path: Path) -> None:
    proc = _render(tmp_path, USES_F_FIRST)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out.svg").read_text().count("MseLossBackward0") == 1
