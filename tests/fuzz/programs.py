"""Random small autograd programs as data: generator, interpreter, comparison and reproducers."""

from __future__ import annotations

import math
import random
import re
import textwrap
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np

# A program is a list of Python statements over a pool of tensors named v0, v1, ... Each step
# is a template (placeholders {a}, {b} are pool names, {out} the new name) plus the pool slots
# it reads. The *same* rendered text is exec'd under `torch` and under detachviz, so the
# reproducer printed on a mismatch is exactly what ran.

RTOL = 1e-5
ATOL = 1e-6


class Chooser(Protocol):
    """The few random decisions the generator makes; backed by hypothesis or random.Random."""

    def integer(self, lo: int, hi: int) -> int: ...

    def pick(self, seq: Sequence[Any]) -> Any: ...

    def coin(self, p: float = 0.5) -> bool: ...


class RandomChooser:
    """Chooser over a seeded random.Random (scripts/fuzz.py)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def pick(self, seq: Sequence[Any]) -> Any:
        return seq[self.rng.randrange(len(seq))]

    def coin(self, p: float = 0.5) -> bool:
        return self.rng.random() < p


class DrawChooser:
    """Chooser over hypothesis' `draw`, so hypothesis can shrink every decision."""

    def __init__(self, draw: Callable[[Any], Any]) -> None:
        from hypothesis import strategies as st

        self.draw = draw
        self.st = st

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(self.st.integers(lo, hi))

    def pick(self, seq: Sequence[Any]) -> Any:
        return seq[self.draw(self.st.integers(0, len(seq) - 1))]

    def coin(self, p: float = 0.5) -> bool:
        # NOTE: hypothesis shrinks integers toward 0, so "0" means the simpler branch (False).
        return self.draw(self.st.integers(0, 999)) >= int(1000 * (1 - p))


# ---------------------------------------------------------------------------- program model


@dataclass(frozen=True)
class Step:
    """One statement. `out` is the pool slot it defines (None for in-place statements)."""

    op: str
    template: str
    args: tuple[int, ...]
    out: int | None
    shape: tuple[int, ...] | None = None  # static shape of `out`

    def render(self) -> str:
        names = {k: f"v{i}" for k, i in zip("ab", self.args)}
        if self.out is not None:
            names["out"] = f"v{self.out}"
        return self.template.format(**names)


@dataclass(frozen=True)
class Program:
    """Inputs (as `torch.tensor(...)` statements), steps, and the tensor backward starts from."""

    inputs: tuple[Step, ...]
    steps: tuple[Step, ...]
    root: int | None  # None only in minimised programs: no backward at all
    backward_twice: bool = False

    def lines(self) -> list[str]:
        return [s.render() for s in self.inputs + self.steps] + self.final_lines()

    def final_lines(self) -> list[str]:
        if self.root is None:
            return []
        back = [f"v{self.root}.sum().backward()"]
        return back * 2 if self.backward_twice else back

    def source(self) -> str:
        return "\n".join(self.lines())

    def slots(self) -> list[int]:
        return [s.out for s in self.inputs + self.steps if s.out is not None]


# ---------------------------------------------------------------------------- op table

Shape = tuple[int, ...]


def _bshape(x: Shape, y: Shape) -> Shape | None:
    try:
        return tuple(np.broadcast_shapes(x, y))
    except ValueError:
        return None


def _mm_shape(x: Shape, y: Shape) -> Shape | None:
    if len(x) not in (1, 2) or len(y) not in (1, 2) or x[-1] != y[0]:
        return None
    return x[:-1] + y[1:]


def _reshape_targets(shape: Shape) -> list[Shape]:
    n = math.prod(shape)
    out = [(n,), (1, n), (n, 1), (-1,)]
    out += [(d, n // d) for d in range(2, n) if n % d == 0]
    return [s for s in out if s != shape]


@dataclass(frozen=True)
class OpRow:
    """A row of the op table: name, arity, shape rule and a template maker."""

    name: str
    arity: int  # pool tensors read: 1 or 2
    kind: str  # "value" (defines a new slot) or "inplace"
    # (chooser, shapes) -> (template, out shape) or None when the op does not fit the shapes
    make: Callable[[Chooser, list[Shape]], tuple[str, Shape | None] | None]


def _unary(expr: str) -> Callable[[Chooser, list[Shape]], tuple[str, Shape]]:
    return lambda ch, s: (expr, s[0])


def _binary(sym: str) -> Callable[[Chooser, list[Shape]], tuple[str, Shape] | None]:
    def make(ch: Chooser, s: list[Shape]) -> tuple[str, Shape] | None:
        shape = _bshape(s[0], s[1])
        return None if shape is None else (f"{{a}} {sym} {{b}}", shape)

    return make


def _function(expr: str) -> Callable[[Chooser, list[Shape]], tuple[str, Shape] | None]:
    def make(ch: Chooser, s: list[Shape]) -> tuple[str, Shape] | None:
        shape = _bshape(s[0], s[1])
        return None if shape is None else (expr, shape)

    return make


def _scalar(sym: str) -> Callable[[Chooser, list[Shape]], tuple[str, Shape]]:
    def make(ch: Chooser, s: list[Shape]) -> tuple[str, Shape]:
        c = ch.pick(["2.0", "0.5", "-1.5", "3"])
        expr = f"{{a}} {sym} {c}" if ch.coin() else f"{c} {sym} {{a}}"
        return expr, s[0]

    return make


def _reduce(fn: str) -> Callable[[Chooser, list[Shape]], tuple[str, Shape]]:
    def make(ch: Chooser, s: list[Shape]) -> tuple[str, Shape]:
        shape = s[0]
        if not shape or ch.coin(0.3):
            return f"{{a}}.{fn}()", ()
        d = ch.integer(0, len(shape) - 1)
        keep = ch.coin()
        out = shape[:d] + ((1,) if keep else ()) + shape[d + 1 :]
        return f"{{a}}.{fn}(dim={d}, keepdim={keep})", out

    return make


def _view(ch: Chooser, s: list[Shape]) -> tuple[str, Shape] | None:
    shape = s[0]
    target = ch.pick(_reshape_targets(shape) or [shape])
    fn = ch.pick(["view", "reshape"])
    if target == (-1,):
        return f"{{a}}.{fn}(-1)", (math.prod(shape),)
    return f"{{a}}.{fn}{tuple(target)!r}".replace(",)", ")"), target


def _transpose(ch: Chooser, s: list[Shape]) -> tuple[str, Shape] | None:
    shape = s[0]
    if len(shape) > 2:
        return None
    if len(shape) == 2 and ch.coin():
        return "{a}.transpose(0, 1)", shape[::-1]
    return "{a}.t()", shape[::-1]


def _unsqueeze(ch: Chooser, s: list[Shape]) -> tuple[str, Shape] | None:
    shape = s[0]
    if len(shape) >= 3:
        return None
    d = ch.integer(0, len(shape))
    return f"{{a}}.unsqueeze({d})", shape[:d] + (1,) + shape[d:]


def _expand(ch: Chooser, s: list[Shape]) -> tuple[str, Shape] | None:
    shape = s[0]
    if len(shape) >= 3:
        return None
    if 1 in shape:
        out = tuple(2 if n == 1 else n for n in shape)
    else:
        out = (2,) + shape
    return f"{{a}}.expand{out!r}".replace(",)", ")"), out


def _index(ch: Chooser, s: list[Shape]) -> tuple[str, Shape] | None:
    shape = s[0]
    if not shape:
        return None
    options = [("{a}[0]", shape[1:]), ("{a}[1:]", (shape[0] - 1,) + shape[1:])]
    if len(shape) == 2:
        options.append(("{a}[:, 0]", shape[:1]))
    return ch.pick(options)


def _matmul(ch: Chooser, s: list[Shape]) -> tuple[str, Shape] | None:
    shape = _mm_shape(s[0], s[1])
    return None if shape is None else ("{a} @ {b}", shape)


def _no_grad(ch: Chooser, s: list[Shape]) -> tuple[str, Shape]:
    expr = ch.pick(["{a} * 2", "{a}.exp()", "{a} + 1", "{a}.view(-1)", "{a}[0:]"])
    shape = (math.prod(s[0]),) if "view" in expr else s[0]
    return "with torch.no_grad():\n    {out} = " + expr, shape


def _pow(ch: Chooser, s: list[Shape]) -> tuple[str, Shape]:
    return f"{{a}} ** {ch.pick(['2', '3', '0.5', '-1'])}", s[0]


def _inplace_binary(method: str) -> Callable[[Chooser, list[Shape]], tuple[str, None] | None]:
    def make(ch: Chooser, s: list[Shape]) -> tuple[str, None] | None:
        if _bshape(s[0], s[1]) != s[0]:
            return None
        return f"{{a}}.{method}({{b}})", None

    return make


def _inplace_scalar(ch: Chooser, s: list[Shape]) -> tuple[str, None]:
    return ch.pick(["{a}.add_(1.5)", "{a}.mul_(2)", "{a}.sub_(0.5)", "{a}.div_(2)"]), None


def _setitem(ch: Chooser, s: list[Shape]) -> tuple[str, None] | None:
    return None if not s[0] else ("{a}[0] = 0.5", None)


def _ravel(ch: Chooser, s: list[Shape]) -> tuple[str, Shape]:
    return "{a}.ravel()", (math.prod(s[0]),)


def _movedim(ch: Chooser, s: list[Shape]) -> tuple[str, Shape] | None:
    shape = s[0]
    if len(shape) < 2:
        return None
    if len(shape) == 2 and ch.coin():
        return "torch.swapaxes({a}, 0, 1)", shape[::-1]
    return "{a}.movedim(0, -1)", shape[1:] + shape[:1]


def _rot90(ch: Chooser, s: list[Shape]) -> tuple[str, Shape] | None:
    shape = s[0]
    if len(shape) != 2:
        return None
    k = ch.pick([1, 2, 3])
    return f"{{a}}.rot90({k})", shape if k == 2 else shape[::-1]


# NOTE: what is left out, and why: random ops (values differ by design), integer dtypes (the
# float programs already reach every autograd rule), `x.data = y` (storage swap changes shapes
# under the generator's feet).
OPS: tuple[OpRow, ...] = (
    OpRow("add", 2, "value", _binary("+")),
    OpRow("sub", 2, "value", _binary("-")),
    OpRow("mul", 2, "value", _binary("*")),
    OpRow("div", 2, "value", _binary("/")),
    OpRow("scalar_add", 1, "value", _scalar("+")),
    OpRow("scalar_sub", 1, "value", _scalar("-")),
    OpRow("scalar_mul", 1, "value", _scalar("*")),
    OpRow("scalar_div", 1, "value", _scalar("/")),
    OpRow("pow", 1, "value", _pow),
    OpRow("exp", 1, "value", _unary("{a}.exp()")),
    OpRow("log", 1, "value", _unary("torch.log({a}.abs() + 1)")),
    OpRow("sqrt", 1, "value", _unary("({a}.abs() + 0.01).sqrt()")),
    OpRow("tanh", 1, "value", _unary("torch.tanh({a})")),
    OpRow("sigmoid", 1, "value", _unary("torch.sigmoid({a})")),
    OpRow("relu", 1, "value", _unary("torch.relu({a})")),
    OpRow("sin", 1, "value", _unary("{a}.sin()")),
    OpRow("neg", 1, "value", _unary("-{a}")),
    OpRow("abs", 1, "value", _unary("{a}.abs()")),
    OpRow("clamp", 1, "value", _unary("{a}.clamp(-1, 1)")),
    OpRow("clamp_min", 1, "value", _unary("{a}.clamp(min=0.5)")),
    OpRow("sum", 1, "value", _reduce("sum")),
    OpRow("mean", 1, "value", _reduce("mean")),
    OpRow("matmul", 2, "value", _matmul),
    OpRow("prod", 1, "value", _reduce("prod")),
    OpRow("nansum", 1, "value", _reduce("nansum")),
    OpRow("ravel", 1, "value", _ravel),
    OpRow("movedim", 1, "value", _movedim),
    OpRow("rot90", 1, "value", _rot90),
    OpRow("view", 1, "value", _view),
    OpRow("transpose", 1, "value", _transpose),
    OpRow("unsqueeze", 1, "value", _unsqueeze),
    OpRow("expand", 1, "value", _expand),
    OpRow("index", 1, "value", _index),
    OpRow("detach", 1, "value", _unary("{a}.detach()")),
    OpRow("data", 1, "value", _unary("{a}.data")),
    OpRow("clone", 1, "value", _unary("{a}.clone()")),
    OpRow("detach_clone", 1, "value", _unary("{a}.detach().clone()")),
    OpRow("tensor_copy", 1, "value", _unary("torch.tensor({a})")),
    OpRow("no_grad", 1, "value", _no_grad),
    OpRow("add_", 2, "inplace", _inplace_binary("add_")),
    OpRow("mul_", 2, "inplace", _inplace_binary("mul_")),
    OpRow("copy_", 2, "inplace", _inplace_binary("copy_")),
    OpRow("scalar_", 1, "inplace", _inplace_scalar),
    OpRow("zero_", 1, "inplace", _unary("{a}.zero_()")),
    OpRow("clamp_", 1, "inplace", _unary("{a}.clamp_(-1, 1)")),
    OpRow("setitem", 1, "inplace", _setitem),
    OpRow("detach_", 1, "inplace", _unary("{a}.detach_()")),
    OpRow("requires_grad_", 1, "inplace", _unary("{a}.requires_grad_()")),
    OpRow("data_inplace", 1, "inplace", _unary("{a}.data.mul_(2)")),
    OpRow("detach_inplace", 1, "inplace", _unary("{a}.detach().mul_(2)")),
    OpRow("no_grad_inplace", 1, "inplace", _unary("with torch.no_grad():\n    {a}.add_(1)")),
    # mathops: the elementwise math of ops/special.py and the appended blocks
    OpRow("erf", 1, "value", _unary("torch.erf({a})")),
    OpRow("asinh", 1, "value", _unary("{a}.asinh()")),
    OpRow("square", 1, "value", _unary("torch.square({a})")),
    OpRow("sinc", 1, "value", _unary("torch.sinc({a})")),
    OpRow("remainder", 1, "value", _unary("torch.remainder({a}, 0.7)")),
    OpRow("clamp_min_fn", 1, "value", _unary("torch.clamp_min({a}, 0.25)")),
    OpRow("atan2", 2, "value", _function("torch.atan2({a}, {b})")),
    OpRow("hypot", 2, "value", _function("torch.hypot({a}, {b})")),
    OpRow("logaddexp", 2, "value", _function("torch.logaddexp({a}, {b})")),
    OpRow("xlogy", 2, "value", _function("torch.xlogy({a}, {b}.abs() + 0.1)")),
)
OPS_BY_NAME = {row.name: row for row in OPS}

INPUT_SHAPES: tuple[Shape, ...] = ((3,), (2, 3), (3, 2), (1, 3), (2,), ())


def _values(ch: Chooser, shape: Shape) -> Any:
    # NOTE: one-decimal values in [-3, 3]: readable reproducers, and 0, +-0.5, +-1 come up often,
    # which is where relu/abs/clamp gradients have their boundary subtleties.
    if not shape:
        return ch.integer(-30, 30) / 10
    return [_values(ch, shape[1:]) for _ in range(shape[0])]


def generate(ch: Chooser, max_steps: int = 8) -> Program:
    """Build one random program. Deterministic given the chooser's answers."""
    inputs: list[Step] = []
    shapes: dict[int, Shape] = {}
    for i in range(ch.integer(1, 3)):
        shape = ch.pick(INPUT_SHAPES)
        rg = ch.coin(0.7) if i < 2 else False  # the third input is a plain constant
        rg_text = ", requires_grad=True" if rg else ""
        tmpl = f"{{out}} = torch.tensor({_values(ch, shape)!r}{rg_text})"
        inputs.append(Step("input", tmpl, (), i, shape))
        shapes[i] = shape
    steps: list[Step] = []
    for _ in range(ch.integer(1, max_steps)):
        row = ch.pick(OPS)
        slots = sorted(shapes)
        # favour recent tensors so programs form chains rather than fans
        args = tuple(ch.pick(slots[-3:] if ch.coin(0.6) else slots) for _ in range(row.arity))
        made = row.make(ch, [shapes[a] for a in args])
        if made is None:
            continue
        tmpl, shape = made
        if row.kind == "value":
            out = len(shapes)
            tmpl = tmpl if tmpl.startswith("with ") else "{out} = " + tmpl
            steps.append(Step(row.name, tmpl, args, out, shape))
            shapes[out] = shape  # type: ignore[assignment]
        else:
            steps.append(Step(row.name, tmpl, args, None))
    slots = sorted(shapes)
    root = slots[-1] if ch.coin(0.7) else ch.pick(slots)
    return Program(tuple(inputs), tuple(steps), root, backward_twice=ch.coin(0.1))


# ---------------------------------------------------------------------------- interpreter


@dataclass
class Snapshot:
    """What we compare about one tensor."""

    shape: tuple[int, ...]
    dtype: str
    values: np.ndarray
    requires_grad: bool
    is_leaf: bool
    grad_fn: str | None
    version: int


@dataclass
class Outcome:
    """Per-line records of one run: ('ok'|'error', detail) plus snapshots."""

    lines: list[str]
    records: list[tuple[Any, ...]] = field(default_factory=list)


def _error(exc: BaseException) -> tuple[str, str]:
    # NOTE: we compare the exception's type name and its FULL message (whitespace-normalised):
    # detachviz copies torch's wordings verbatim, so a shortened or reworded message is a
    # finding. Only the builtin base type counts (detachviz may raise a RuntimeError subclass).
    base = next(c for c in type(exc).__mro__ if c.__module__ == "builtins")
    return base.__name__, " ".join(str(exc).split())


def _safe(fn: Callable[[], Any]) -> Any:
    # reading grad_fn of a no_grad view whose base was modified in-place raises in torch
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - the exception is the observed value
        return ("error", *_error(exc))


def _name(gf: Any) -> str | None:
    return None if gf is None else type(gf).__name__


def snapshot(t: Any) -> Snapshot | str:
    if not hasattr(t, "requires_grad"):
        return f"<not a tensor: {type(t).__name__}>"
    return Snapshot(
        tuple(t.shape),
        str(t.dtype),
        np.array(t.detach().cpu().numpy(), dtype=np.float64, copy=True),
        _safe(lambda: bool(t.requires_grad)),
        _safe(lambda: bool(t.is_leaf)),
        _safe(lambda: _name(t.grad_fn)),
        int(t._version),
    )


def _values_of(t: Any) -> np.ndarray:
    return np.array(t.detach().numpy(), dtype=np.float64, copy=True)


def _grad(t: Any) -> Any:
    return _safe(lambda: _grad_or_none(t))


def _grad_or_none(t: Any) -> Any:
    if not t.is_leaf:  # reading .grad of a non-leaf warns; only leaves are populated anyway
        return "non-leaf"
    g = t.grad
    return None if g is None else np.array(g.detach().numpy(), dtype=np.float64, copy=True)


def run(program: Program, torch_mod: Any) -> Outcome:
    """Execute `program` with `torch` bound to `torch_mod`; record every step."""
    lines = program.lines()
    out = Outcome(lines)
    env: dict[str, Any] = {"torch": torch_mod}
    steps = list(program.inputs + program.steps)
    with warnings.catch_warnings():
        # torch.tensor(t) warns by design; warnings are not part of this comparison
        warnings.simplefilter("ignore")
        for i, line in enumerate(lines):
            step = steps[i] if i < len(steps) else None
            missing = [a for a in (step.args if step else ()) if f"v{a}" not in env]
            if step is None:
                missing = [] if f"v{program.root}" in env else [program.root]
            if missing:  # an earlier step failed in this engine; skip what depends on it
                out.records.append(("skipped",))
                continue
            # inputs' exact bits, to tell an op's own error from amplified rounding (compare())
            args = [
                _safe(lambda a=a: _values_of(env[f"v{a}"])) for a in (step.args if step else ())
            ]
            try:
                exec(compile(line, "<fuzz>", "exec"), env)
            except Exception as exc:  # noqa: BLE001 - any exception is an outcome
                out.records.append(("error", *_error(exc)))
                continue
            if step is None:
                out.records.append(("ok",))
            else:
                target = step.out if step.out is not None else step.args[0]
                out.records.append(("ok", snapshot(env[f"v{target}"]), args))
        pool = [(s, env.get(f"v{s}")) for s in program.slots()]
        out.records.append(
            ("final", [(s, snapshot(t) if t is not None else None) for s, t in pool])
        )
        out.records.append(("grads", [(s, _grad(t) if t is not None else None) for s, t in pool]))
    return out


# ---------------------------------------------------------------------------- comparison


def _close(x: np.ndarray, y: np.ndarray) -> bool:
    return x.shape == y.shape and bool(np.allclose(x, y, rtol=RTOL, atol=ATOL, equal_nan=True))


def _diff_snap(a: Any, b: Any) -> str | None:
    """Name of the first differing field of two snapshots (or None)."""
    if isinstance(a, Snapshot) != isinstance(b, Snapshot):
        return "kind"
    if not isinstance(a, Snapshot):
        return None if a == b else "kind"
    for name in ("shape", "dtype", "requires_grad", "is_leaf", "grad_fn", "version"):
        if getattr(a, name) != getattr(b, name):
            return name
    return None if _close(a.values, b.values) else "values"


def _diff_grad(a: Any, b: Any) -> str | None:
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return None if _close(a, b) else "grad_values"
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return "grad_none"
    return None if a == b else "grad_none"


@dataclass
class Mismatch:
    """The first point where the engines disagree."""

    line: int  # index into Outcome.lines (len(lines) for final/grads)
    where: str  # op name, "backward", "final v3" or "grad v0"
    field: str
    expected: Any
    actual: Any

    @property
    def signature(self) -> str:
        """`op:field`, plus for errors which side raised and the head of the message."""
        where = re.sub(r" v\d+$", "", self.where)
        return f"{where}:{self.field}{_cause(self)}"


def _cause(m: Mismatch) -> str:
    # NOTE: grouping by the message head puts one engine bug in one group, whatever op hit it
    def head(msg: str) -> str:
        return " ".join(msg.split()[:6])

    if m.field == "outcome":
        side, rec = ("torch", m.expected) if m.expected[0] == "error" else ("detachviz", m.actual)
        return f"[{side} raised: {head(rec[2])}]" if rec[0] == "error" else ""
    if m.field in ("error_message", "error_type"):
        return f"[torch: {head(m.expected[1])}]"
    for x in (m.expected, m.actual):  # a flag that raised while being read
        if isinstance(x, Snapshot):
            bad = [v for v in (x.requires_grad, x.is_leaf, x.grad_fn) if isinstance(v, tuple)]
            if bad:
                return f"[reading raised: {head(bad[0][2])}]"
    return ""


def compare(program: Program, expected: Outcome, actual: Outcome) -> Mismatch | None:
    """First difference between the oracle's outcome and detachviz's (None if they agree)."""
    steps = program.inputs + program.steps
    ops = [s.op for s in steps] + ["backward"] * len(program.final_lines())
    # NOTE: numpy and torch may round an op's result differently in the last bit (e.g. exp,
    # sin, pow use different libm code). An op that amplifies that (sin of a large value,
    # division near a pole) then differs by more than the tolerance. A value difference is
    # accepted ("tainted") only when the op's inputs already differed bit-wise; an op that gets
    # identical inputs and returns different values is always reported.
    tainted: set[int] = set()
    for i, (e, a) in enumerate(zip(expected.records, actual.records)):
        if e[0] in ("final", "grads"):
            differ = _diff_snap if e[0] == "final" else _diff_grad
            for (slot, x), (_, y) in zip(e[1], a[1]):
                d = differ(x, y)
                if d in ("values", "grad_values") and tainted:
                    continue
                if d:
                    return Mismatch(i, f"{e[0]} v{slot}", d, x, y)
            continue
        if e[0] != a[0]:
            return Mismatch(i, ops[i], "outcome", e, a)
        if e[0] == "error" and e[1:] != a[1:]:
            d = "error_type" if e[1] != a[1] else "error_message"
            return Mismatch(i, ops[i], d, e[1:], a[1:])
        if e[0] == "ok" and len(e) > 1:
            d = _diff_snap(e[1], a[1])
            if d == "values" and not _same_bits(e[2], a[2]):
                step = steps[i]
                tainted.add(step.out if step.out is not None else step.args[0])
                continue
            if d:
                return Mismatch(i, ops[i], d, e[1], a[1])
    return None


def _same_bits(xs: list[Any], ys: list[Any]) -> bool:
    return all(
        isinstance(x, np.ndarray)
        and isinstance(y, np.ndarray)
        and x.shape == y.shape
        and np.array_equal(x, y, equal_nan=True)
        for x, y in zip(xs, ys)
    )


def _show(x: Any) -> str:
    if isinstance(x, Snapshot):
        vals = np.array2string(x.values, precision=6, separator=", ")
        return (
            f"shape={x.shape} dtype={x.dtype} requires_grad={x.requires_grad} "
            f"is_leaf={x.is_leaf} grad_fn={x.grad_fn} _version={x.version} values={vals}"
        )
    if isinstance(x, np.ndarray):
        return np.array2string(x, precision=6, separator=", ")
    return repr(x)


def report(program: Program, m: Mismatch) -> str:
    """Readable failure text: the program with the offending line marked, and both outcomes."""
    lines = program.lines()
    body = []
    for i, line in enumerate(lines):
        mark = "  # <-- differs here" if i == m.line else ""
        body.append(line + mark)
    return (
        f"mismatch [{m.signature}] at {m.where}\n"
        + "\n".join(body)
        + f"\n  torch     : {_show(m.expected)}\n  detachviz : {_show(m.actual)}"
    )


def check(program: Program, torch_mod: Any, dt_mod: Any) -> Mismatch | None:
    return compare(program, run(program, torch_mod), run(program, dt_mod))


# ---------------------------------------------------------------------------- known differences

# Open engine differences found by the campaign (scripts/fuzz.py, seed 0, 5000 programs).
# Each row: id, signature regex it accounts for, minimal reproducer (torch vs detachviz).
# NOTE: a tolerated signature can hide a *new* bug with the same signature; keep this table
# short and delete rows as soon as the engine matches torch (the xfail below will say so).
KNOWN: list[tuple[str, str, str]] = []


def known_issue(m: Mismatch) -> str | None:
    """The KNOWN row whose signature pattern matches `m`, if any."""
    return next((name for name, sig, _ in KNOWN if re.search(sig, m.signature)), None)


# ---------------------------------------------------------------------------- minimising


def _without(program: Program, drop: int) -> Program | None:
    """`program` minus step `drop` and every later step that reads what it defined."""
    steps = list(program.steps)
    dead = {steps[drop].out} if steps[drop].out is not None else set()
    kept = []
    for i, s in enumerate(steps):
        if i == drop or dead.intersection(s.args):
            if s.out is not None:
                dead.add(s.out)
            continue
        kept.append(s)
    if program.root in dead:
        return None
    return replace(program, steps=tuple(kept))


def minimise(program: Program, still_fails: Callable[[Program], bool]) -> Program:
    """Greedy shrinking: earlier root, drop steps one at a time, unused inputs, 2nd backward."""
    changed = True
    while changed:
        changed = False
        if program.backward_twice:
            cand = replace(program, backward_twice=False)
            if still_fails(cand):
                program, changed = cand, True
        for slot in [None, *program.slots()]:  # no or an earlier root lets more steps go
            if program.root is None or (slot is not None and slot >= program.root):
                break
            cand = replace(program, root=slot)
            if still_fails(cand):
                program, changed = cand, True
                break
        for i in reversed(range(len(program.steps))):
            if i >= len(program.steps):
                continue
            cand = _without(program, i)
            if cand is not None and still_fails(cand):
                program, changed = cand, True
        used = {a for s in program.steps for a in s.args} | {program.root}
        inputs = tuple(s for s in program.inputs if s.out in used)
        if len(inputs) < len(program.inputs):
            cand = replace(program, inputs=inputs)
            if still_fails(cand):
                program, changed = cand, True
    return program


def parse(source: str) -> Program:
    """A Program from its printed source (for pinned reproducers). Step op names are "step"."""
    stmts: list[str] = []
    for line in source.strip().splitlines():
        if line.startswith(" ") and stmts:
            stmts[-1] += "\n" + line
        else:
            stmts.append(line)
    back = [s for s in stmts if re.fullmatch(r"v\d+\.sum\(\)\.backward\(\)", s)]
    root = int(back[0][1:].split(".")[0]) if back else None
    inputs, steps = [], []
    for text in stmts[: len(stmts) - len(back)]:
        names = [int(n) for n in re.findall(r"\bv(\d+)\b", text)]
        defined = re.search(r"^\s*v(\d+) = ", text, re.M)
        out = int(defined.group(1)) if defined else None
        args = tuple(n for n in names if n != out)
        template = text.replace("{", "{{").replace("}", "}}")
        kind = "input" if not args and "torch.tensor(" in text else "step"
        (inputs if kind == "input" else steps).append(Step(kind, template, args, out))
    return Program(tuple(inputs), tuple(steps), root, backward_twice=len(back) > 1)


def runnable(program: Program, m: Mismatch | None = None) -> str:
    """A standalone script reproducing `program` (prints every tensor and grad)."""
    head = ["import torch  # run with python (oracle) and with `detachviz run`", ""]
    if m is not None:
        head.insert(0, f"# detachviz fuzz mismatch [{m.signature}] at {m.where}")
    prints = [
        f"print('v{s}', v{s}, v{s}._version, v{s}.grad if v{s}.is_leaf else '')"
        for s in program.slots()
    ]
    body = []
    for line in program.lines() + prints:  # every line runs, whatever raised before it
        body += ["try:", textwrap.indent(line, "    ")]
        body += ["except Exception as exc:", "    print(type(exc).__name__, exc)"]
    return "\n".join(head + body) + "\n"
