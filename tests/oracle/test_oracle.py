"""PyTorch-oracle tests: each script in scripts/ must print the same under detachviz and torch.

How it works: a session fixture (conftest.py) runs ALL selected scripts once under real torch
and once under detachviz, each batch in a single subprocess (oracle_driver.py; `import torch`
costs ~1.5 s, so one process per script would be far too slow), both batches in parallel, with
cwd = a tmp dir and PYTHONHASHSEED=0. Each parametrized test then compares one script's stdout
line by line (unified diff on mismatch) and its exit code.

Adding a script: drop `scripts/<area>_<idea>.py` (areas: detach_, inplace_, storage_, grad_,
views_, nograd_, errors_, printing_, nn_, optim_, forward_ad_, dtype_, seed_). Rules:
- an ordinary PyTorch program: `import torch` etc. explicitly, runs with `python script.py`;
- one idea, < 40 lines, fast, and deterministic: call torch.manual_seed before printing
  random values (detachviz draws torch's stream, but seeds 0 where torch seeds from the OS);
  print floats via tensor repr or rounded (`round(x, 5)`, `f"{x:.5f}"`);
- print grad_fns as `type(t.grad_fn).__name__` or `t.grad_fn.name()`, never their repr
  (it has a memory address); print caught errors as `type(e).__name__ + ": " + str(e)`;
- warnings go to stderr and are not compared;
- a script may end with sys.exit(n) or an uncaught exception on purpose: the exit code and
  the final `Type: message` are compared too (see errors_uncaught_runtime_error.py);
- check it: run it twice under real torch and confirm identical output.

Env knobs: DETACHVIZ_ORACLE_ISOLATE=1 runs detachviz with one `python -m detachviz run`
process per script (slower; rules out state leaking between scripts).
"""

from __future__ import annotations

import difflib

import pytest
from oracle_batches import SCRIPTS

# The oracle_results fixture (conftest.py) runs the two batches (oracle_batches.py).


def _diff(expected: str, actual: str) -> str:
    return "\n".join(
        difflib.unified_diff(
            expected.splitlines(),
            actual.splitlines(),
            fromfile="torch",
            tofile="detachviz",
            lineterm="",
        )
    )


def test_scripts_exist() -> None:
    assert len(SCRIPTS) >= 60
    assert not [s for s in SCRIPTS if s.startswith("test_")], "scripts must not look like tests"


@pytest.mark.parametrize("script", SCRIPTS)
def test_same_output_as_torch(script: str, oracle_results) -> None:
    torch_res, dv_res = oracle_results
    expected, actual = torch_res[script], dv_res[script]
    assert not expected["error"].startswith("[driver]"), f"torch run broke: {expected['error']}"
    header = (
        f"{script}: exit torch={expected['exit_code']} detachviz={actual['exit_code']}"
        + (f"\n  detachviz error: {actual['error']}" if actual["error"] else "")
        + (f"\n  torch error: {expected['error']}" if expected["error"] else "")
    )
    diff = _diff(expected["stdout"], actual["stdout"])
    assert expected["stdout"].splitlines() == actual["stdout"].splitlines(), f"{header}\n{diff}"
    assert expected["exit_code"] == actual["exit_code"], header
    assert expected["error"] == actual["error"], header
