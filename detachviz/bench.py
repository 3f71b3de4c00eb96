"""Times the seed's tensor-copy idioms on detachviz's engine and, when installed, on PyTorch.

API for the CLI (`detachviz bench`); everything else here is internal:

    default_sizes(max_power: int = DEFAULT_MAX_POWER) -> list[int]        # 3**0 ... 3**max_power
    measure(
        sizes: Sequence[int],
        engines: Sequence[str] = ("detachviz", "torch"),
        *,
        repeat: int = DEFAULT_REPEAT,
        min_sample_s: float = DEFAULT_MIN_SAMPLE_S,
        on_progress: Callable[[int, int, str], None] | None = None,   # (done, total, what)
    ) -> Results
    Results.table() -> tuple[list[str], list[list[str]]]   # header, rows: for a rich Table
    Results.to_markdown() -> str
    Results.to_dict() -> dict                               # for --json
    Results.chart(fmt: str = "svg", *, renderer: str | None = None) -> bytes
    Results.missing: dict[str, str]                         # engine -> why it was not timed
    Results.engines: tuple[str, ...]                        # the engines actually timed
    ENGINE_NAMES = ("detachviz", "torch")                   # for click.Choice

measure() raises ValueError for bad arguments (one line, for a usage error); chart() raises
render.backend.RenderError. A missing PyTorch is not an error: see Results.missing.

Each figure is the median, over `repeat` samples, of the time per call; a sample runs the
idiom in an inner loop sized so that the sample lasts at least `min_sample_s` (timer
resolution and call overhead stay negligible). Real torch is a benchmark peer, never a
dependency: it is imported here only, on demand, and never while detachviz's runner has put
its own engine in `sys.modules["torch"]`.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import importlib
import platform
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

DEFAULT_MAX_POWER = 12  # 3**12 = 531,441 elements (2 MB): well into the memory-bound regime
DEFAULT_REPEAT = 9
DEFAULT_MIN_SAMPLE_S = 2e-4  # short samples fit in one scheduler slice on a busy machine
ENGINE_NAMES = ("detachviz", "torch")

# Both torch.tensor(t) and t.new_tensor(t) warn "To copy construct from a tensor, ...";
# the warning is part of the idiom's cost but would flood the terminal while timing.
_COPY_WARNING = "To copy construct from a tensor"


@dataclass(frozen=True)
class Idiom:
    """One way to copy a tensor, as the seed's perfplot comparison labels and writes it."""

    label: str
    code: str
    run: Callable[[Any, Any], Any]  # (torch-like module, x) -> the copy
    # NOTE: when x requires grad, empty_like(x).copy_(x) is still attached to x's graph
    # (grad_fn=CopyBackwards); every other idiom gives a detached leaf copy.
    attached: bool = False


IDIOMS: tuple[Idiom, ...] = (
    Idiom("new_tensor()", "x.new_tensor(x)", lambda torch, x: x.new_tensor(x)),
    Idiom("clone().detach()", "x.clone().detach()", lambda torch, x: x.clone().detach()),
    Idiom(
        "empty_like().copy()",
        "torch.empty_like(x).copy_(x)",
        lambda torch, x: torch.empty_like(x).copy_(x),
        attached=True,
    ),
    Idiom("tensor()", "torch.tensor(x)", lambda torch, x: torch.tensor(x)),
    Idiom("detach().clone()", "x.detach().clone()", lambda torch, x: x.detach().clone()),
)


class EngineUnavailable(Exception):
    """An engine could not be imported; str() says why in one line."""


def _load_detachviz() -> ModuleType:
    try:
        return importlib.import_module("detachviz.torch")
    except ImportError as e:  # the engine is part of this package: a broken install
        raise EngineUnavailable(f"detachviz's engine failed to import: {e}") from e


def _load_torch() -> ModuleType:
    current = sys.modules.get("torch")
    if current is not None and current.__name__ != "torch":
        # The runner's swap is active: "torch" is detachviz itself, not the peer.
        raise EngineUnavailable("'torch' currently resolves to detachviz (inside a script run)")
    try:
        module = importlib.import_module("torch")
    except ImportError:
        raise EngineUnavailable("PyTorch is not installed") from None
    if module.__name__ != "torch":
        raise EngineUnavailable("'torch' resolves to detachviz, not PyTorch")
    return module


ENGINES: dict[str, Callable[[], ModuleType]] = {
    "detachviz": _load_detachviz,
    "torch": _load_torch,
}


def default_sizes(max_power: int = DEFAULT_MAX_POWER) -> list[int]:
    """len(x) for every point, 3**0 ... 3**max_power, as the seed's `l_range` (shortened)."""
    if not 0 <= max_power <= 20:
        raise ValueError(f"max_power must be between 0 and 20, got {max_power}")
    return [3**i for i in range(max_power + 1)]


@dataclass(frozen=True)
class Timing:
    """One point: the median seconds per call over `samples` samples of `loops` calls each."""

    engine: str
    idiom: str
    size: int
    median_s: float
    loops: int
    samples: int


@dataclass
class Results:
    """The medians of one run, keyed by (engine, idiom label, size)."""

    sizes: tuple[int, ...]
    engines: tuple[str, ...]  # the engines actually timed, in the order asked
    repeat: int
    timings: dict[tuple[str, str, int], Timing] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)  # engine -> why not timed
    versions: dict[str, str] = field(default_factory=dict)

    def median(self, engine: str, idiom: str, size: int) -> float | None:
        t = self.timings.get((engine, idiom, size))
        return None if t is None else t.median_s

    def ratio(self, idiom: str, size: int) -> float | None:
        """detachviz's median over torch's; None unless both were timed."""
        ours = self.median("detachviz", idiom, size)
        peer = self.median("torch", idiom, size)
        if ours is None or peer is None or peer <= 0:
            return None
        return ours / peer

    @property
    def has_ratios(self) -> bool:
        return "detachviz" in self.engines and "torch" in self.engines

    def table(self) -> tuple[list[str], list[list[str]]]:
        """Header and rows of strings: one row per idiom and size, one column per engine,
        then the ratio when both engines ran."""
        header = ["idiom", "len(x)", *self.engines]
        if self.has_ratios:
            header.append("detachviz/torch")
        rows = []
        for idiom in IDIOMS:
            for size in self.sizes:
                row = [idiom.code, f"{size:,}"]
                row += [format_seconds(self.median(e, idiom.label, size)) for e in self.engines]
                if self.has_ratios:
                    row.append(format_ratio(self.ratio(idiom.label, size)))
                rows.append(row)
        return header, rows

    def to_markdown(self) -> str:
        header, rows = self.table()
        right = [False] + [True] * (len(header) - 1)  # numbers line up on the right
        lines = [
            "| " + " | ".join(header) + " |",
            "|" + "|".join("---:" if r else "---" for r in right) + "|",
        ]
        lines += [
            "| " + " | ".join(_md_cell(c, i == 0) for i, c in enumerate(r)) + " |" for r in rows
        ]
        return "\n".join(lines) + "\n"

    def _ordered(self) -> list[Timing]:
        """Timings by engine, then idiom, then size (the order measuring them interleaves)."""
        keys = [(e, i.label, s) for e in self.engines for i in IDIOMS for s in self.sizes]
        return [self.timings[k] for k in keys if k in self.timings]

    def to_dict(self) -> dict[str, Any]:
        return {
            "sizes": list(self.sizes),
            "engines": list(self.engines),
            "missing": dict(self.missing),
            "repeat": self.repeat,
            "versions": dict(self.versions),
            "idioms": [{"label": i.label, "code": i.code} for i in IDIOMS],
            "timings": [
                {
                    "engine": t.engine,
                    "idiom": t.idiom,
                    "size": t.size,
                    "median_s": t.median_s,
                    "loops": t.loops,
                    "samples": t.samples,
                }
                for t in self._ordered()
            ],
            "ratios": [
                {"idiom": i.label, "size": s, "detachviz_over_torch": self.ratio(i.label, s)}
                for i in IDIOMS
                for s in self.sizes
            ]
            if self.has_ratios
            else [],
        }

    def chart(self, fmt: str = "svg", *, renderer: str | None = None) -> bytes:
        """A perfplot-style log-log chart: a line per idiom and engine (RenderError on failure)."""
        from detachviz.render import chart

        series = [
            chart.Series(
                idiom.label,
                list(self.sizes),
                [self.median(engine, idiom.label, s) or 0.0 for s in self.sizes],
                engine,
            )
            for engine in self.engines
            for idiom in IDIOMS
        ]
        title = "Copying a tensor: " + " vs ".join(self.engines)
        return chart.render_chart(
            series, fmt, title=title, xlabel="len(x)", ylabel="runtime [s]", renderer=renderer
        )


def _md_cell(text: str, code: bool) -> str:
    return f"`{text}`" if code else text


_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))


def format_seconds(seconds: float | None) -> str:
    """`12.3 µs`: three significant digits in the largest unit that keeps the number >= 1."""
    if seconds is None:
        return "-"
    seconds = float(f"{seconds:.3g}")  # round first: 999.6 ns is "1 µs", not "1e+03 ns"
    for scale, unit in _UNITS:
        if seconds >= scale or unit == "ns":
            return f"{seconds / scale:.3g} {unit}"
    raise AssertionError("unreachable")


def format_ratio(ratio: float | None) -> str:
    return "-" if ratio is None else f"{ratio:.3g}×"


def time_calls(
    fns: Mapping[str, Callable[[], Any]], *, repeat: int, min_sample_s: float
) -> dict[str, tuple[float, int]]:
    """name -> (median seconds per call, loops per sample) for each fn, timeit-style.

    Each fn's inner loop count grows until one sample lasts `min_sample_s`; then `repeat`
    rounds take one sample of every fn in turn, with the garbage collector off (as timeit
    does). NOTE: interleaving the fns' samples means a burst of load from another process
    hits the engines being compared alike, so their ratio stays meaningful on a busy machine;
    the median then drops the samples such a burst spoiled.
    """
    target = int(min_sample_s * 1e9)
    loops: dict[str, int] = {}
    per_call: dict[str, list[float]] = {name: [] for name in fns}
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        for name, fn in fns.items():
            fn()  # warm-up: first-call costs (imports, caches) are not what is compared
            loops[name] = _calibrate(fn, target)
        for _ in range(repeat):
            for name, fn in fns.items():
                per_call[name].append(_sample(fn, loops[name]) / loops[name])
    finally:
        if gc_was_on:
            gc.enable()
    return {name: (statistics.median(per_call[name]) / 1e9, loops[name]) for name in fns}


def _calibrate(fn: Callable[[], Any], target_ns: int) -> int:
    """The inner loop count for which one sample of fn lasts at least target_ns."""
    loops = 1
    while True:
        elapsed = _sample(fn, loops)
        if elapsed >= target_ns or loops >= 1 << 30:
            return loops
        # Jump close to the target instead of doubling from 1 (fewer calibration rounds).
        loops = max(loops * 2, int(loops * target_ns / max(elapsed, 1)))


def _sample(fn: Callable[[], Any], loops: int) -> int:
    r = range(loops)
    start = time.perf_counter_ns()
    for _ in r:
        fn()
    return time.perf_counter_ns() - start


def load_engines(engines: Sequence[str]) -> tuple[dict[str, ModuleType], dict[str, str]]:
    """(engine name -> module) for those that import, and (name -> why not) for the rest."""
    unknown = [e for e in engines if e not in ENGINES]
    if unknown:
        raise ValueError(f"unknown engine {unknown[0]!r}: choose from {', '.join(ENGINES)}")
    loaded: dict[str, ModuleType] = {}
    missing: dict[str, str] = {}
    for name in dict.fromkeys(engines):  # keep order, drop repeats
        try:
            loaded[name] = ENGINES[name]()
        except EngineUnavailable as e:
            missing[name] = str(e)
    return loaded, missing


def _versions(modules: dict[str, ModuleType]) -> dict[str, str]:
    import numpy

    from detachviz import __version__

    out = {"python": platform.python_version(), "numpy": numpy.__version__}
    out["detachviz"] = __version__
    if "torch" in modules:
        torch = modules["torch"]
        out["torch"] = str(torch.__version__)
        out["torch_threads"] = "1"  # see _single_threaded
    return out


@contextlib.contextmanager
def _single_threaded(torch: ModuleType | None) -> Iterator[None]:
    """Run PyTorch on one thread while timing, restoring its setting after.

    NOTE: numpy (detachviz's engine) copies on one thread, and torch's intra-op pool only
    starts above ~32k elements; on a busy 2-core machine waking that pool measured ~16 ms
    for a 59k-element copy that takes ~9 us on one thread. One thread compares like with like.
    """
    if torch is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def measure(
    sizes: Sequence[int],
    engines: Sequence[str] = ENGINE_NAMES,
    *,
    repeat: int = DEFAULT_REPEAT,
    min_sample_s: float = DEFAULT_MIN_SAMPLE_S,
    on_progress: Callable[[int, int, str], None] | None = None,
) -> Results:
    """Time every idiom on every engine that imports, for each size (x = torch.randn(size)).

    Engines that cannot be imported are skipped and listed in `Results.missing` (a missing
    PyTorch is normal). `on_progress(done, total, what)` is called after each (idiom, size)
    point, which times every engine.
    """
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    if not sizes or any(int(s) != s or s < 1 for s in sizes):
        raise ValueError("sizes must be positive integers")
    modules, missing = load_engines(engines)
    results = Results(
        sizes=tuple(int(s) for s in sizes),
        engines=tuple(modules),
        repeat=repeat,
        missing=missing,
        versions=_versions(modules),
    )
    total = len(IDIOMS) * len(results.sizes)
    done = 0
    with warnings.catch_warnings(), _single_threaded(modules.get("torch")):
        warnings.filterwarnings("ignore", message=_COPY_WARNING, category=UserWarning)
        for size in results.sizes:
            xs = {engine: torch.randn(size) for engine, torch in modules.items()}
            for idiom in IDIOMS:
                fns = {  # partial is C-level: no extra Python frame inside the timed loop
                    engine: functools.partial(idiom.run, torch, xs[engine])
                    for engine, torch in modules.items()
                }
                timed = time_calls(fns, repeat=repeat, min_sample_s=min_sample_s)
                for engine, (median_s, loops) in timed.items():
                    results.timings[(engine, idiom.label, size)] = Timing(
                        engine, idiom.label, size, median_s, loops, repeat
                    )
                done += 1
                if on_progress is not None:
                    on_progress(done, total, f"{idiom.code}  len(x)={size:,}")
    return results
