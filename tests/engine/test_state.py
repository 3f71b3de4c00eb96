"""All process-wide engine state lives in engine/state.py and `state.reset()` restores every
piece of it: a process that changes each setting and resets reads the same as a fresh one."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "detachviz" / "engine"

# what a process reads of the state (every setting), as JSON
SNAPSHOT = """
import dataclasses, json, types, warnings
import numpy as np
import detachviz.torch as torch
from detachviz.engine import state

def snapshot():
    out = {}
    for name, value in sorted(vars(state).items()):
        if name.startswith("_") or isinstance(value, (types.ModuleType, types.FunctionType, type)):
            continue
        if type(value).__module__ in ("__future__", "typing"):
            continue  # `annotations`, `Any`
        if dataclasses.is_dataclass(value):
            value = dataclasses.asdict(value)
        elif name == "default_generator":  # torch's state bytes: twister, seed, normal caches
            value = value.get_state().tolist()
        elif name == "fw_live":
            value = len(value)
        elif name == "fw_hooks":
            value = value is not None
        elif name == "default_dtype":
            value = str(value)
        out[name] = value
    # and what the settings do
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.ones(1).storage()
    out["storage warns"] = len(w)
    x = torch.ones(2, requires_grad=True)
    out["grad recorded"] = (x * 2).requires_grad
    out["random"] = torch.rand(3).tolist()
    out["repr"] = repr(torch.tensor([1.123456789, 2.0]))
    out["float dtype"] = str(torch.tensor(1.5).dtype)
    return out
"""

CHANGE_ALL = """
import detachviz.engine.forward_ad as fwad
torch.set_grad_enabled(False)
torch.inference_mode().__enter__()
torch.autograd.set_detect_anomaly(True, check_nan=False)
fwad.enter_dual_level()
dual = fwad.make_dual(torch.ones(2), torch.ones(2))
torch.set_printoptions(precision=8, linewidth=40, sci_mode=True)
torch.set_default_dtype(torch.float64)
torch.manual_seed(1234)
torch.rand(4)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    torch.ones(1).storage()
state.reset()
"""


def _run(code: str) -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", SNAPSHOT + code + "\nprint(json.dumps(snapshot()))"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=ROOT,
    )
    return json.loads(done.stdout.splitlines()[-1])


def test_reset_restores_what_a_fresh_process_has() -> None:
    fresh = _run("")
    reset = _run(CHANGE_ALL)
    assert reset == fresh
    # the snapshot saw every setting the module defines
    assert {"grad_enabled", "inference", "anomaly", "fw_level", "print_options"} <= set(fresh)
    assert {"default_dtype", "default_generator", "warned_typed_storage"} <= set(fresh)


def test_changing_a_setting_is_visible_to_the_snapshot() -> None:
    # the comparison above can fail: without reset() the two processes differ
    changed = _run(CHANGE_ALL.replace("state.reset()", ""))
    fresh = _run("")
    differ = sorted(k for k in fresh if fresh[k] != changed[k])
    assert {"grad_enabled", "default_dtype", "print_options", "storage warns"} <= set(differ)
    assert {"default_generator", "random"} <= set(differ)


def test_no_other_engine_module_keeps_process_wide_state() -> None:
    """Only state.py (and the trace's RECORDER, the trace contract) rebinds module globals."""
    offenders = []
    for path in sorted(ENGINE.rglob("*.py")):
        if path.name == "state.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Global):
                names = [n for n in node.names if not (path.name == "trace.py" and n == "RECORDER")]
                if names:
                    offenders.append(f"{path.name}: {names}")
    assert offenders == []
