"""One line per oracle script that detachviz gets wrong: `python tests/oracle/oracle_summary.py`.

Runs the same two batches as test_oracle.py (torch and detachviz, in parallel) and prints, for
each mismatching script, the first cause: detachviz's uncaught exception, else the first line
that differs. Optional arguments restrict the run to scripts whose name contains any of them.
"""

from __future__ import annotations

import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from oracle_batches import SCRIPTS, _run_batch  # noqa: E402


def first_cause(expected: dict, actual: dict) -> str | None:
    if actual["error"] and actual["error"] != expected["error"]:
        return actual["error"].splitlines()[0][:160]
    exp, act = expected["stdout"].splitlines(), actual["stdout"].splitlines()
    for i in range(max(len(exp), len(act))):
        e = exp[i] if i < len(exp) else "<missing>"
        a = act[i] if i < len(act) else "<missing>"
        if e != a:
            # Show both lines from a little before their first differing character.
            k = next((j for j, (x, y) in enumerate(zip(e, a)) if x != y), min(len(e), len(a)))
            k = max(0, k - 20)
            return f"line {i + 1}: torch {e[k : k + 70]!r} vs detachviz {a[k : k + 70]!r}"
    if expected["exit_code"] != actual["exit_code"]:
        return f"exit code torch={expected['exit_code']} detachviz={actual['exit_code']}"
    return None


def main(filters: list[str]) -> int:
    scripts = [s for s in SCRIPTS if not filters or any(f in s for f in filters)]
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(2) as pool:
        t = pool.submit(_run_batch, "torch", scripts, Path(tmp) / "torch")
        d = pool.submit(_run_batch, "detachviz", scripts, Path(tmp) / "detachviz")
        torch_res, dv_res = t.result(), d.result()
    failing = [(s, first_cause(torch_res[s], dv_res[s])) for s in scripts]
    failing = [(s, c) for s, c in failing if c is not None]
    for s, cause in failing:
        print(f"{s}: {cause}")
    print(f"{len(scripts) - len(failing)}/{len(scripts)} scripts match torch")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
