"""cauchy_, log_normal_ and geometric_ draw torch's numbers for a seed (compared exactly), name
their nodes as torch does, and raise torch's errors."""

from __future__ import annotations

import pytest

import detachviz.torch as dv

torch = pytest.importorskip("torch")

CALLS = [
    ("cauchy_", ()),
    ("cauchy_", (0.5, 2.0)),
    ("log_normal_", ()),
    ("log_normal_", (0.5, 0.75)),
    ("geometric_", (0.3,)),
    ("geometric_", (0.9,)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 3, 16, 17, 100])
@pytest.mark.parametrize("seed", [0, 7, 2**40 + 123])
@pytest.mark.parametrize("method, args", CALLS)
def test_fills_match_torch_exactly(method: str, args: tuple, seed: int, n: int, dtype: str) -> None:
    values = []
    for ns in (dv, torch):
        ns.manual_seed(seed)
        t = ns.empty(n, dtype=getattr(ns, dtype))
        getattr(t, method)(*args)
        values.append((t.tolist(), ns.rand(2).tolist()))  # and the generator's next state
    assert values[0] == values[1]


def test_geometric_fills_integer_tensors_and_a_transposed_view_in_memory_order() -> None:
    results = []
    for ns in (dv, torch):
        ns.manual_seed(1)
        a = ns.empty(4, dtype=ns.int64).geometric_(0.5)
        b = ns.empty(3, 2).t().cauchy_()
        results.append((a.tolist(), b.tolist()))
    assert results[0] == results[1]


@pytest.mark.parametrize("method", ["cauchy_", "log_normal_", "geometric_"])
def test_node_names_match(method: str) -> None:
    names = []
    for ns in (dv, torch):
        x = ns.ones(3, requires_grad=True) * 1
        getattr(x, method)(*((0.5,) if method == "geometric_" else ()))
        names.append(type(x.grad_fn).__name__)
    assert names[0] == names[1]


@pytest.mark.parametrize(
    "call",
    [
        lambda ns: ns.empty(3).cauchy_(0, -1),
        lambda ns: ns.empty(3).log_normal_(0, -1),
        lambda ns: ns.empty(3).geometric_(1.5),
        lambda ns: ns.empty(3).geometric_(0),
        lambda ns: ns.empty(3, dtype=ns.int64).cauchy_(),
        lambda ns: ns.empty(3, dtype=ns.int64).log_normal_(),
    ],
)
def test_bad_arguments_raise_torchs_errors(call) -> None:  # noqa: ANN001
    messages = []
    for ns in (dv, torch):
        with pytest.raises(RuntimeError) as info:
            call(ns)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
