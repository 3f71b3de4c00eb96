"""`detachviz bench`'s logic: what each copy idiom really does, and what measure() returns.

No assertion here is about speed: timings are only checked to exist and be positive.
"""

from __future__ import annotations

import json
import sys
import warnings
from types import ModuleType

import pytest

from detachviz import bench
from detachviz.bench import IDIOMS, Idiom, Results, Timing

TINY = dict(repeat=1, min_sample_s=1e-6)  # one short sample per point: fast, no speed claims


def engine_module(name: str) -> ModuleType:
    if name == "torch":
        pytest.importorskip("torch")
    return bench.ENGINES[name]()


ENGINES = ["detachviz", "torch"]
BY_IDIOM = pytest.mark.parametrize("idiom", IDIOMS, ids=[i.code for i in IDIOMS])
BY_ENGINE = pytest.mark.parametrize("name", ENGINES)


def copy_of(torch: ModuleType, idiom: Idiom, x: object) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch.tensor(t)'s copy-construct advice
        return idiom.run(torch, x)


def test_idioms_are_the_seeds_perfplot_kernels() -> None:
    assert [(i.label, i.code) for i in IDIOMS] == [
        ("new_tensor()", "x.new_tensor(x)"),
        ("clone().detach()", "x.clone().detach()"),
        ("empty_like().copy()", "torch.empty_like(x).copy_(x)"),
        ("tensor()", "torch.tensor(x)"),
        ("detach().clone()", "x.detach().clone()"),
    ]


@BY_ENGINE
@BY_IDIOM
def test_each_idiom_makes_an_independent_equal_copy(name: str, idiom: Idiom) -> None:
    torch = engine_module(name)
    x = torch.tensor([1.5, -2.0, 3.25])
    y = copy_of(torch, idiom, x)
    assert y.tolist() == [1.5, -2.0, 3.25]
    assert y.dtype == x.dtype and tuple(y.shape) == (3,)
    assert not y.requires_grad
    assert y.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    y.add_(1.0)  # a write through the copy never reaches the original
    assert x.tolist() == [1.5, -2.0, 3.25]
    assert x._version == 0


@BY_ENGINE
@BY_IDIOM
def test_copy_of_a_tensor_that_requires_grad(name: str, idiom: Idiom) -> None:
    # NOTE: only empty_like(x).copy_(x) stays in x's graph; the rest are detached leaves.
    torch = engine_module(name)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = copy_of(torch, idiom, x)
    assert y.requires_grad is idiom.attached
    assert y.is_leaf is (not idiom.attached)
    assert (y.grad_fn is not None) is idiom.attached
    assert y.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()


@BY_ENGINE
@pytest.mark.parametrize("code", ["torch.tensor(x)", "x.new_tensor(x)"])
def test_copy_construct_warns_outside_the_benchmark(name: str, code: str) -> None:
    torch = engine_module(name)
    idiom = next(i for i in IDIOMS if i.code == code)
    with pytest.warns(UserWarning, match=bench._COPY_WARNING):
        idiom.run(torch, torch.ones(2))


def test_measure_on_tiny_sizes() -> None:
    calls: list[tuple[int, int]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the benchmark itself must not leak the copy warning
        r = bench.measure(
            [1, 3], ("detachviz",), on_progress=lambda d, t, _: calls.append((d, t)), **TINY
        )
    assert r.engines == ("detachviz",) and r.sizes == (1, 3) and r.missing == {}
    assert calls == [(d, 10) for d in range(1, 11)]
    assert len(r.timings) == len(IDIOMS) * 2
    for idiom in IDIOMS:
        for size in (1, 3):
            t = r.timings[("detachviz", idiom.label, size)]
            assert t.median_s > 0 and t.loops >= 1 and t.samples == 1
            assert r.ratio(idiom.label, size) is None  # no peer, no ratio


def test_measure_with_torch_gives_ratios_and_restores_threads() -> None:
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    r = bench.measure([1, 9], **TINY)
    assert r.engines == ("detachviz", "torch") and r.has_ratios
    assert torch.get_num_threads() == threads
    for idiom in IDIOMS:
        for size in (1, 9):
            ours = r.median("detachviz", idiom.label, size)
            peer = r.median("torch", idiom.label, size)
            assert r.ratio(idiom.label, size) == pytest.approx(ours / peer)
    header, rows = r.table()
    assert header == ["idiom", "len(x)", "detachviz", "torch", "detachviz/torch"]
    assert len(rows) == 10 and all(row[-1].endswith("×") for row in rows)
    assert len(r.to_dict()["ratios"]) == 10


def test_missing_torch_is_skipped_and_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    def absent() -> ModuleType:
        raise bench.EngineUnavailable("PyTorch is not installed")

    monkeypatch.setitem(bench.ENGINES, "torch", absent)
    r = bench.measure([1], **TINY)
    assert r.engines == ("detachviz",)
    assert r.missing == {"torch": "PyTorch is not installed"}
    assert not r.has_ratios and r.to_dict()["ratios"] == []


def test_real_torch_is_not_taken_from_the_runners_swap(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = ModuleType("detachviz.torch")  # what sys.modules["torch"] is while a script runs
    monkeypatch.setitem(sys.modules, "torch", fake)
    with pytest.raises(bench.EngineUnavailable, match="resolves to detachviz"):
        bench._load_torch()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sizes": [1], "engines": ("jax",)}, "unknown engine 'jax'"),
        ({"sizes": [1], "repeat": 0}, "repeat must be at least 1"),
        ({"sizes": []}, "positive integers"),
        ({"sizes": [0]}, "positive integers"),
        ({"sizes": [2.5]}, "positive integers"),
    ],
)
def test_measure_rejects_bad_arguments(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        bench.measure(**kwargs)


@pytest.mark.parametrize(
    ("max_power", "sizes"), [(0, [1]), (3, [1, 3, 9, 27]), (7, [3**i for i in range(8)])]
)
def test_default_sizes(max_power: int, sizes: list[int]) -> None:
    assert bench.default_sizes(max_power) == sizes


@pytest.mark.parametrize("max_power", [-1, 21])
def test_default_sizes_range(max_power: int) -> None:
    with pytest.raises(ValueError, match="max_power"):
        bench.default_sizes(max_power)


def test_time_calls_counts_warm_up_calibration_and_interleaved_samples() -> None:
    calls: list[str] = []
    fns = {"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}
    timed = bench.time_calls(fns, repeat=3, min_sample_s=0)
    assert list(timed) == ["a", "b"]
    assert all(loops == 1 and median >= 0 for median, loops in timed.values())
    # warm-up and one calibration sample each (a zero target is reached at once), then the
    # samples alternate so that load from other processes hits both alike.
    assert calls == ["a", "a", "b", "b"] + ["a", "b"] * 3


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (2.0, "2 s"),
        (1.234e-3, "1.23 ms"),
        (1.5e-6, "1.5 µs"),
        (9.996e-7, "1 µs"),  # rounds up into the next unit, not "1e+03 ns"
        (5e-10, "0.5 ns"),
        (None, "-"),
    ],
)
def test_format_seconds(seconds: float | None, text: str) -> None:
    assert bench.format_seconds(seconds) == text


def hand_made_results() -> Results:
    r = Results(sizes=(1, 3), engines=("detachviz", "torch"), repeat=1)
    for n, (engine, scale) in enumerate((("detachviz", 4e-6), ("torch", 2e-6))):
        for idiom in IDIOMS:
            for size in (1, 3):
                r.timings[(engine, idiom.label, size)] = Timing(
                    engine, idiom.label, size, scale * size, 10 + n, 1
                )
    return r


def test_markdown_table() -> None:
    md = hand_made_results().to_markdown().splitlines()
    assert md[0] == "| idiom | len(x) | detachviz | torch | detachviz/torch |"
    assert md[1] == "|---|---:|---:|---:|---:|"
    assert md[2] == "| `x.new_tensor(x)` | 1 | 4 µs | 2 µs | 2× |"
    assert len(md) == 2 + 10


def test_to_dict_is_json_with_every_timing_and_ratio() -> None:
    d = json.loads(json.dumps(hand_made_results().to_dict()))
    assert d["sizes"] == [1, 3] and d["engines"] == ["detachviz", "torch"]
    assert len(d["timings"]) == 20
    assert d["timings"][0] == {
        "engine": "detachviz",
        "idiom": "new_tensor()",
        "size": 1,
        "median_s": 4e-6,
        "loops": 10,
        "samples": 1,
    }
    assert [r["detachviz_over_torch"] for r in d["ratios"]] == pytest.approx([2.0] * 10)


def test_chart_has_a_line_per_idiom_and_engine() -> None:
    svg = hand_made_results().chart("svg").decode("utf-8")
    for word in [i.label for i in IDIOMS] + ["detachviz", "torch", "len(x)", "runtime [s]"]:
        assert f">{word}</text>" in svg
    # torch's five lines (one segment each: two sizes) and its legend swatch are dashed.
    assert svg.count("stroke-dasharray") == 5 + 1
