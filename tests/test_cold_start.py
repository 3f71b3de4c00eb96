"""What a command loads: `detachviz render` of a plain script on a stderr that is no
terminal imports neither rich nor the pdf translator's XML parser, nor torch.nn, torch.optim,
torch.save's zipfile, numpy.random, tempfile or sysconfig; and the torch submodules,
imported when a script first imports them, are the real modules whichever a script touches
first and however it says it (a deferred-loading attempt broke `F.relu` used before `nn`:
nested lazy packages cannot load their parent)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import sys
at_start = set(sys.modules)  # what site (.pth files) loaded is not ours
from detachviz.cli import cli
try:
    cli.main(["render", sys.argv[1], "-o", sys.argv[2]], prog_name="detachviz")
except SystemExit as e:
    assert not e.code, e.code
print(sorted(m for m in sys.modules if m.split(".")[0] in ("rich", "xml")))
print(sorted(m for m in NOT_FOR_A_PLAIN_SCRIPT if m in set(sys.modules) - at_start))
"""
NOT_FOR_A_PLAIN_SCRIPT = (
    "detachviz.nn",
    "detachviz.optim",
    "detachviz.serialization",
    "detachviz.utils",
    "numpy.random",
    "zipfile",
    "detachviz.render.pdf",  # the svg-to-pdf translator: only for a pdf (render/backend.py)
    "graphviz",  # make_dot's drawing renders and saves without it (render/digraph.py)
    "tempfile",  # a quiet run catches fd 1 in a memfd (runner._anonymous_file)
    "sysconfig",  # asked only of a module imported from the script's folder, or to find
    # graphviz-pure off the interpreter's folder
    # the op families imported on first use (engine/deferred.py) the seed does not call
    "detachviz.engine.ops.decomp",
    "detachviz.engine.ops.conv",
    "detachviz.engine.ops.loss",
    "detachviz.engine.ops.stats",
)
PROBE = PROBE.replace("NOT_FOR_A_PLAIN_SCRIPT", repr(NOT_FOR_A_PLAIN_SCRIPT))

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


MAKE_DOT = "from torchviz import make_dot\n" + SEED + 'make_dot(b + c).render("g", format="jpg")\n'


@pytest.mark.parametrize("code", [SEED, MAKE_DOT], ids=["seed", "+make_dot"])
def test_render_of_a_plain_script_loads_only_what_it_needs(tmp_path: Path, code: str) -> None:
    proc = _render(tmp_path, code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-2:] == ["[]", "[]"]
    assert (tmp_path / "out.svg").read_text().count("<svg") == 1
    if code is MAKE_DOT:
        assert (tmp_path / "g.jpg").read_bytes()[:3] == b"\xff\xd8\xff"
        assert (tmp_path / "g").read_text().startswith("digraph {")


def test_functional_used_before_nn_is_the_real_module(tmp_path: Path) -> None:
    proc = _render(tmp_path, USES_F_FIRST)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out.svg").read_text().count("MseLossBackward0") == 1


# Every way a script reaches a submodule, each first thing after `import torch`; each script
# checks it got the engine's module and that it works.
FIRST_IMPORTS = {
    "from torch import nn": "from torch import nn\nassert nn.Linear(2, 1).out_features == 1",
    "import torch.optim as optim": (
        "import torch.optim as optim\nw = torch.ones(2, requires_grad=True)\n"
        "opt = optim.SGD([w], lr=0.5)\n(w * w).sum().backward()\nopt.step()\n"
        "assert w.tolist() == [0.0, 0.0] and optim is torch.optim"
    ),
    "autograd.forward_ad first": (
        "import torch.autograd.forward_ad as fwAD\nwith fwAD.dual_level():\n"
        "    d = fwAD.make_dual(torch.ones(2), torch.ones(2))\n"
        "    assert fwAD.unpack_dual(d * 3).tangent.tolist() == [3.0, 3.0]"
    ),
    "from torch.autograd.functional import": (
        "from torch.autograd.functional import jacobian\n"
        "assert jacobian(lambda x: 2 * x, torch.ones(1)).tolist() == [[2.0]]"
    ),
    "from torch.utils.data import": (
        "from torch.utils.data import DataLoader, TensorDataset\n"
        "xs = [b[0].shape[0] for b in DataLoader(TensorDataset(torch.ones(5, 2)), batch_size=2)]\n"
        "assert xs == [2, 2, 1]"
    ),
    "import torch.nn.utils.rnn first": (
        "import torch.nn.utils.rnn as rnn\n"
        "assert rnn.pad_sequence([torch.ones(2), torch.ones(1)]).shape == (2, 2)"
    ),
    "torch.nn as an attribute": "assert isinstance(torch.nn.ReLU(), torch.nn.Module)",
    "torch.save": (
        "import io\nb = io.BytesIO()\ntorch.save(torch.ones(2), b)\nb.seek(0)\n"
        "assert torch.load(b).tolist() == [1.0, 1.0] and 'save' in dir(torch)"
    ),
    "pre-bound nn and F": "assert F.relu(nn.Identity()(torch.ones(1) - 2)).tolist() == [0.0]",
    "torch.fft is refused": (
        "try:\n    import torch.fft\nexcept ModuleNotFoundError as e:\n"
        "    assert str(e).startswith('torch.fft is not supported by detachviz')\n"
        "else:\n    raise AssertionError('imported')"
    ),
}


@pytest.mark.parametrize("first", FIRST_IMPORTS)
def test_a_submodule_imported_first_is_the_real_module(tmp_path: Path, first: str) -> None:
    code = (
        "import torch\n"
        + FIRST_IMPORTS[first]
        + "\ny = (torch.ones(1, requires_grad=True) * 2).sum()\n"
    )
    proc = _render(tmp_path, code)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out.svg").read_text().count("MulBackward0") == 1
