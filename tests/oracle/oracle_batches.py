"""The two oracle batches: every selected script under real torch and under detachviz, each
engine in one subprocess (oracle_driver.py). Shared by test_oracle.py (printed output),
test_drawing_parity.py (backward graphs) and oracle_summary.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SCRIPTS_DIR = HERE / "scripts"
DRIVER = HERE / "oracle_driver.py"
SCRIPTS = sorted(p.name for p in SCRIPTS_DIR.glob("*.py"))
BATCH_TIMEOUT_S = 600


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    env.pop("PYTHONSTARTUP", None)
    return env


def _run_batch(mode: str, scripts: list[str], workdir: Path) -> dict[str, dict]:
    workdir.mkdir(parents=True, exist_ok=True)
    out = workdir / f"{mode}.json"
    paths = [str(SCRIPTS_DIR / s) for s in scripts]
    proc = subprocess.run(
        [sys.executable, str(DRIVER), mode, str(out), *paths],
        cwd=workdir,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=BATCH_TIMEOUT_S,
    )
    if proc.returncode != 0 or not out.exists():
        raise RuntimeError(f"{mode} driver failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    (workdir / f"{mode}.stderr.txt").write_text(proc.stderr, encoding="utf-8")
    return json.loads(out.read_text(encoding="utf-8"))["scripts"]


def selected_scripts(session: pytest.Session) -> list[str]:
    """Only the scripts whose tests were collected (so `-k name` runs one script, fast)."""
    names = {
        item.callspec.params["script"]
        for item in session.items
        if getattr(item, "callspec", None) is not None and "script" in item.callspec.params
    }
    return sorted(names) or SCRIPTS


def run_both(scripts: list[str], root: Path) -> tuple[dict[str, dict], dict[str, dict]]:
    """(torch results, detachviz results) per script name, both batches in parallel."""
    dv_mode = "detachviz-cli" if os.environ.get("DETACHVIZ_ORACLE_ISOLATE") else "detachviz"
    with ThreadPoolExecutor(max_workers=2) as pool:
        torch_job = pool.submit(_run_batch, "torch", scripts, root / "torch")
        dv_job = pool.submit(_run_batch, dv_mode, scripts, root / "detachviz")
        return torch_job.result(), dv_job.result()
