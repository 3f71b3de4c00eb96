"""Runs many oracle scripts in one process (real torch or detachviz) and writes their outputs.

Usage: python oracle_driver.py {torch,detachviz,detachviz-cli} OUT.json SCRIPT...

One process per engine keeps the suite fast: `import torch` costs ~1.5 s, so paying it once
instead of once per script is the difference between seconds and minutes. Each script still
gets a fresh namespace, its own argv, and the cwd of this process. The result per script is
{"stdout", "exit_code", "error", "graph"} where "error" is `Type: message` of an uncaught
exception (empty when the script exited cleanly) and "graph" the backward graphs the script left
behind (see backward_edges; None when it did not exit cleanly), for test_drawing_parity.py.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import runpy
import signal
import subprocess
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

# A hung script must not hang the suite; the alarm turns it into a recorded failure.
PER_SCRIPT_TIMEOUT_S = 30


class ScriptTimeout(Exception):
    """The script ran longer than PER_SCRIPT_TIMEOUT_S."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise ScriptTimeout(f"script ran longer than {PER_SCRIPT_TIMEOUT_S} s")


def _describe(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}"


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def _reset_torch() -> None:
    """Undo global state a previous script may have changed (grad mode, dtype, printing)."""
    import torch

    torch.set_grad_enabled(True)
    torch.set_default_dtype(torch.float32)
    torch.set_printoptions(profile="default")
    torch.autograd.set_detect_anomaly(False)
    torch.set_default_device(None)  # a set default device is a function mode: no fast paths


def _roots(namespace: dict[str, Any], is_tensor: Callable[[Any], bool]) -> list[Any]:
    """The tensors with a grad_fn a script left in its globals, directly or one level inside
    a list, tuple or dict (a training loop's `losses`), in namespace order."""
    roots: list[Any] = []
    for name, value in namespace.items():
        if name.startswith("__"):
            continue
        inner = value.values() if isinstance(value, dict) else value
        items = list(inner) if isinstance(value, (list, tuple, dict)) else [value]
        roots.extend(v for v in items if is_tensor(v) and v.grad_fn is not None)
    return roots


def backward_edges(namespace: dict[str, Any], is_tensor: Callable[[Any], bool]) -> list[str]:
    """Every backward node reachable from the script's roots as `Name -> Next, Next` (its
    next_functions in order, `None` for an input that needs no gradient), sorted, each line
    once: the same with either engine exactly when the nodes and edges have torch's names."""
    lines: set[str] = set()
    seen: set[int] = set()
    stack = [t.grad_fn for t in _roots(namespace, is_tensor)]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        nexts = [n for n, _ in node.next_functions]
        names = ", ".join("None" if n is None else n.name() for n in nexts)
        lines.add(f"{node.name()} -> {names}")
        stack.extend(n for n in nexts if n is not None)
    return sorted(lines)


def run_torch(path: str) -> dict[str, Any]:
    _reset_torch()
    import torch

    out = io.StringIO()
    code, error, namespace = 0, "", None
    old_argv = sys.argv
    sys.argv = [path]
    try:
        with contextlib.redirect_stdout(out):
            namespace = runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        code = _exit_code(e.code)
    except BaseException as e:  # the script's own failure, recorded like `python` reports it
        code, error = 1, _describe(e)
        traceback.print_exc(file=sys.stderr)
    finally:
        sys.argv = old_argv
    graph = None if namespace is None else backward_edges(namespace, torch.is_tensor)
    return {"stdout": out.getvalue(), "exit_code": code, "error": error, "graph": graph}


def run_detachviz(path: str) -> dict[str, Any]:
    from detachviz.runner import run_script
    from detachviz.torch import is_tensor

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = run_script(path, [])
    error = "" if result.error is None else _describe(result.error)
    if result.error_text:
        sys.stderr.write(result.error_text)
    clean = result.exit_code == 0 and result.error is None
    graph = backward_edges(result.namespace, is_tensor) if clean else None
    return {"stdout": out.getvalue(), "exit_code": result.exit_code, "error": error, "graph": graph}


def run_detachviz_cli(path: str) -> dict[str, Any]:
    """Fallback / isolation mode: one `python -m detachviz run` process per script."""
    proc = subprocess.run(
        [sys.executable, "-m", "detachviz", "run", path],
        capture_output=True,
        text=True,
        timeout=PER_SCRIPT_TIMEOUT_S,
    )
    lines = proc.stderr.strip().splitlines()
    error = lines[-1] if proc.returncode != 0 and lines else ""
    return {"stdout": proc.stdout, "exit_code": proc.returncode, "error": error, "graph": None}


def _guarded(run: Callable[[str], dict[str, Any]], path: str) -> dict[str, Any]:
    """Run one script; a crash of the harness itself is recorded, never fatal for the batch."""
    signal.alarm(PER_SCRIPT_TIMEOUT_S)
    try:
        return run(path)
    except BaseException as e:  # noqa: BLE001 - e.g. detachviz.runner missing or broken
        traceback.print_exc(file=sys.stderr)
        return {"stdout": "", "exit_code": 99, "error": f"[driver] {_describe(e)}", "graph": None}
    finally:
        signal.alarm(0)


def _runner_available() -> bool:
    try:
        from detachviz.runner import run_script  # noqa: F401
    except Exception:  # noqa: BLE001 - any import failure means: use the CLI per script
        return False
    return True


RUNNERS: dict[str, Callable[[str], dict[str, Any]]] = {
    "torch": run_torch,
    "detachviz": run_detachviz,
    "detachviz-cli": run_detachviz_cli,
}


def main(argv: list[str]) -> int:
    mode, out_path, scripts = argv[0], Path(argv[1]), argv[2:]
    if mode == "detachviz" and not _runner_available():
        mode = "detachviz-cli"
    if mode == "torch":
        # once, before any per-script alarm: on a loaded machine `import torch` alone can take
        # longer than a script's whole budget, and an alarm inside it crashes the process
        import torch  # noqa: F401
    signal.signal(signal.SIGALRM, _on_alarm)
    results = {"mode": mode, "scripts": {}}
    for path in scripts:
        sys.stderr.write(f"--- {os.path.basename(path)}\n")
        results["scripts"][os.path.basename(path)] = _guarded(RUNNERS[mode], path)
    out_path.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
