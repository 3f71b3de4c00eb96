"""Drawing parity: for every oracle script that leaves a backward graph behind, detachviz's
backward nodes have torch's names and torch's edges.

The oracle driver (oracle_driver.backward_edges) walks, after each clean run, every graph
reachable from the tensors the script left in its globals (directly or inside a list, tuple or
dict), and lists each node as `Name -> Next, Next` (next_functions in order, `None` for an
input that needs no gradient). What the picture draws is exactly these nodes and edges, so a
differing line is a node detachviz names differently or wires differently from torch. The
batches are the ones test_oracle.py already runs (the session fixture in conftest.py): this
test costs only the walks.

KNOWN lists the scripts that differ for a documented reason (strict xfail: a fixed one fails
until its row is removed).
"""

from __future__ import annotations

import pytest
from oracle_batches import SCRIPTS

# script -> why its graph is not torch's (keep short; each row is a node-naming bug to fix)
KNOWN: dict[str, str] = {
    "prog_autograd_batched_jacobians.py": "vmap(jacrev): torch runs batched kernels, we loop",
}


def _diff(expected: list[str], actual: list[str]) -> str:
    want, got = set(expected), set(actual)
    only_torch = [f"  torch only:     {line}" for line in expected if line not in got]
    only_dv = [f"  detachviz only: {line}" for line in actual if line not in want]
    return "\n".join(only_torch + only_dv)


@pytest.mark.parametrize(
    "script",
    [
        pytest.param(s, marks=pytest.mark.xfail(reason=KNOWN[s], strict=True)) if s in KNOWN else s
        for s in SCRIPTS
    ],
)
def test_same_backward_graph_as_torch(script: str, oracle_results) -> None:
    torch_res, dv_res = oracle_results
    expected, actual = torch_res[script]["graph"], dv_res[script]["graph"]
    if expected is None or actual is None:
        pytest.skip("no clean run under both engines (the output test covers it)")
    if not expected:
        assert not actual, f"{script}: torch leaves no graph\n{_diff(expected, actual)}"
        return
    assert expected == actual, f"{script}: backward graphs differ\n{_diff(expected, actual)}"


def test_known_rows_name_existing_scripts() -> None:
    assert sorted(set(KNOWN) - set(SCRIPTS)) == []
