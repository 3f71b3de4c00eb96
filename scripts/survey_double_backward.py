"""Survey: is the graph a create_graph backward builds torch's graph, op by op?

For each op f below, both engines compute g = autograd.grad(f(x), x, create_graph=True) and
the script compares g's backward graph (every node with its next nodes, as sorted
`Name -> Next, ...` lines) and g's values, then the second derivative d(sum(g * u))/dx.
Needs real torch (the oracle). Usage: `PYTHONPATH=. python scripts/survey_double_backward.py
[-v] [NAME ...]`; prints one line per op and `mismatches: M of N`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

# torch's AVX2 kernels are the reference (an AVX-512 host would pick others for sigmoid)
os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")
import torch

import detachviz.torch as dv

RNG = np.random.default_rng(0)
X4 = RNG.standard_normal((2, 3, 4, 4))
W4 = RNG.standard_normal((2, 3, 3, 3))
X2 = np.array([[-1.3, -0.4, 0.2, 0.9], [0.45, 0.9, 1.7, -0.6], [0.3, -1.1, 0.8, 1.2]])
W2 = RNG.standard_normal((5, 4))
TARGET = RNG.standard_normal((3, 4))
PROB = 1 / (1 + np.exp(-TARGET))
LABELS = [1, 0, 3]


def _t(T: Any, a: Any) -> Any:
    return T.tensor(a)


F = Callable[[Any, Any], Any]
# name -> (input, f(torch module, x) -> a scalar or a tensor)
OPS: dict[str, tuple[np.ndarray, F]] = {
    "tanh": (X2, lambda T, x: x.tanh()),
    "sigmoid": (X2, lambda T, x: x.sigmoid()),
    "relu": (X2, lambda T, x: x.relu() * x),
    "exp": (X2, lambda T, x: x.exp()),
    "log": (X2, lambda T, x: (x * x + 1).log()),
    "sin": (X2, lambda T, x: x.sin()),
    "cos": (X2, lambda T, x: x.cos()),
    "pow3": (X2, lambda T, x: x**3),
    "sqrt": (X2, lambda T, x: (x * x + 1).sqrt()),
    "reciprocal": (X2, lambda T, x: (x * x + 1).reciprocal()),
    "abs": (X2, lambda T, x: x.abs() * x),
    "mul": (X2, lambda T, x: x * x),
    "div": (X2, lambda T, x: x / (x * x + 1)),
    "leaky_relu": (X2, lambda T, x: T.nn.functional.leaky_relu(x, 0.1) * x),
    "elu": (X2, lambda T, x: T.nn.functional.elu(x)),
    "elu_": (X2, lambda T, x: T.nn.functional.elu_(x * 1)),
    "gelu": (X2, lambda T, x: T.nn.functional.gelu(x)),
    "silu": (X2, lambda T, x: T.nn.functional.silu(x)),
    "softplus": (X2, lambda T, x: T.nn.functional.softplus(x)),
    "hardtanh": (X2, lambda T, x: T.nn.functional.hardtanh(x) * x),
    "softmax": (X2, lambda T, x: x.softmax(1) * x),
    "log_softmax": (X2, lambda T, x: x.log_softmax(1) * x),
    "sum": (X2, lambda T, x: x.sum(1) ** 2),
    "mean": (X2, lambda T, x: x.mean(0) ** 2),
    "var": (X2, lambda T, x: x.var(1)),
    "std": (X2, lambda T, x: x.std(1)),
    "norm": (X2, lambda T, x: x.norm()),
    "norm_dim": (X2, lambda T, x: T.linalg.vector_norm(x, dim=1)),
    "logsumexp": (X2, lambda T, x: x.logsumexp(1)),
    "max": (X2, lambda T, x: x.max() * x),
    "max_dim": (X2, lambda T, x: x.max(1).values ** 2),
    "min": (X2, lambda T, x: x.min() * x),
    "amax": (X2, lambda T, x: x.amax(1) ** 2),
    "mm": (X2, lambda T, x: (x @ x.t()).tanh()),
    "linear": (X2, lambda T, x: T.nn.functional.linear(x, _t(T, W2)).tanh()),
    "matmul_w": (W2, lambda T, w: (_t(T, X2) @ w.t()).tanh()),
    "select": (X2, lambda T, x: x[1] ** 2),
    "slice": (X2, lambda T, x: x[:, 1:3] ** 2),
    "index": (X2, lambda T, x: x[T.tensor([0, 2])] ** 2),
    "transpose": (X2, lambda T, x: x.t() ** 2),
    "reshape": (X2, lambda T, x: x.reshape(4, 3) ** 2),
    "cat": (X2, lambda T, x: T.cat([x, x * x]) ** 2),
    "stack": (X2, lambda T, x: T.stack([x, x * x]) ** 2),
    "expand": (X2, lambda T, x: x[:, :1].expand(3, 4) * x),
    "where": (X2, lambda T, x: T.where(x > 0, x, x * x) * x),
    "clamp": (X2, lambda T, x: x.clamp(-0.5, 0.5) * x),
    "mse": (X2, lambda T, x: T.nn.functional.mse_loss(x, _t(T, TARGET))),
    "l1": (X2, lambda T, x: T.nn.functional.l1_loss(x * x, _t(T, TARGET))),
    "smooth_l1": (X2, lambda T, x: T.nn.functional.smooth_l1_loss(x, _t(T, TARGET))),
    "huber": (X2, lambda T, x: T.nn.functional.huber_loss(x, _t(T, TARGET), delta=0.5)),
    "bce": (X2, lambda T, x: T.nn.functional.binary_cross_entropy(x.sigmoid(), _t(T, PROB))),
    "bce_logits": (
        X2,
        lambda T, x: T.nn.functional.binary_cross_entropy_with_logits(x, _t(T, PROB)),
    ),
    "nll": (
        X2,
        lambda T, x: T.nn.functional.nll_loss(x.log_softmax(1), T.tensor([1, 0, 3])),
    ),
    "cross_entropy": (X2, lambda T, x: T.nn.functional.cross_entropy(x, T.tensor(LABELS))),
    "cross_entropy_sum": (
        X2,
        lambda T, x: T.nn.functional.cross_entropy(x, T.tensor(LABELS), reduction="sum"),
    ),
    "normalize": (X2, lambda T, x: T.nn.functional.normalize(x, dim=1) * x),
    "cosine_similarity": (
        X2,
        lambda T, x: T.nn.functional.cosine_similarity(x, _t(T, TARGET)) ** 2,
    ),
    "layer_norm": (X2, lambda T, x: T.nn.functional.layer_norm(x, (4,)) ** 3),
    "layer_norm_affine": (
        X2,
        lambda T, x: T.nn.functional.layer_norm(x, (4,), x[0] * 1, x[1] * 1) ** 3,
    ),
    "batch_norm": (X4, lambda T, x: T.nn.functional.batch_norm(x, None, None, training=True) ** 3),
    "batch_norm_affine": (
        X4,
        lambda T, x: (
            T.nn.functional.batch_norm(
                x, None, None, x[0, :, 0, 0] * 1, x[1, :, 0, 0] * 1, training=True
            )
            ** 3
        ),
    ),
    "conv2d_input": (X4, lambda T, x: T.nn.functional.conv2d(x, _t(T, W4), padding=1).tanh()),
    "conv2d_weight": (W4, lambda T, w: T.nn.functional.conv2d(_t(T, X4), w, padding=1).tanh()),
    "conv2d_both": (X4, lambda T, x: T.nn.functional.conv2d(x, x[:2, :, :3, :3] * 1).tanh()),
    "max_pool2d": (X4, lambda T, x: T.nn.functional.max_pool2d(x, 2) ** 3),
    "avg_pool2d": (X4, lambda T, x: T.nn.functional.avg_pool2d(x, 2) ** 3),
    "adaptive_avg_pool2d": (X4, lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, 1) ** 3),
    "dropout_eval": (X2, lambda T, x: T.nn.functional.dropout(x, training=False) ** 3),
    # mathops: the elementwise math of ops/special.py and the appended blocks
    "erf": (X2, lambda T, x: T.erf(x)),
    "erfc": (X2, lambda T, x: T.erfc(x)),
    "erfinv": (X2, lambda T, x: T.erfinv(x * 0.5)),
    "square": (X2, lambda T, x: T.square(x) * x),
    "asinh": (X2, lambda T, x: T.asinh(x)),
    "acosh": (X2, lambda T, x: T.acosh(x * x + 1.5)),
    "atanh": (X2, lambda T, x: T.atanh(x * 0.5)),
    "deg2rad": (X2, lambda T, x: T.deg2rad(x) * x),
    "atan2": (X2, lambda T, x: T.atan2(x, x * x + 0.5)),
    "hypot": (X2, lambda T, x: T.hypot(x, x * x + 0.5)),
    "logaddexp": (X2, lambda T, x: T.logaddexp(x, x * x)),
    "logaddexp2": (X2, lambda T, x: T.logaddexp2(x, x * x)),
    "xlogy": (X2, lambda T, x: T.xlogy(x, x * x + 1)),
    "copysign": (X2, lambda T, x: T.copysign(x, x - 0.5) * x),
    "logit": (X2, lambda T, x: T.logit(x.sigmoid())),
    "lgamma": (X2, lambda T, x: T.lgamma(x * x + 1)),
    "digamma": (X2, lambda T, x: T.digamma(x * x + 1)),
    "polygamma": (X2, lambda T, x: T.polygamma(1, x * x + 1)),
    "mvlgamma": (X2, lambda T, x: T.mvlgamma(x * x + 2, 2)),
    "i0": (X2, lambda T, x: T.i0(x)),
    "sinc": (X2, lambda T, x: T.sinc(x)),
    "clamp_min": (X2, lambda T, x: T.clamp_min(x, 0.1) * x),
    "clamp_max_tensor": (X2, lambda T, x: T.clamp_max(x, x * x) * x),
    "fmax": (X2, lambda T, x: T.fmax(x, x * x) * x),
    "float_power": (X2, lambda T, x: T.float_power(x, 3)),
    "nan_to_num": (X2, lambda T, x: T.nan_to_num(x) * x),
    "remainder": (X2, lambda T, x: T.remainder(x, 0.7) * x),
}

# the shape ops of round 6 (engine/ops/arrange.py, totals.py, scan.py, scatter.py)
OPS.update(
    {
        "rot90": (X2, lambda T, x: x.rot90(1) ** 3),
        "unfold": (X2, lambda T, x: x.unfold(1, 2, 1) ** 3),
        "trace": (X2, lambda T, x: (x[:, :3] ** 3).trace()),
        "prod": (X2, lambda T, x: x.prod(1) * x[:, 0]),
        "prod_all": (X2, lambda T, x: x[:2].prod() * x),
        "cummax": (X2, lambda T, x: x.cummax(1).values ** 3),
        "index_fill": (X2, lambda T, x: x.index_fill(1, T.tensor([0, 2]), 0.5) ** 3),
        "index_copy": (
            X2,
            lambda T, x: x.index_copy(1, T.tensor([2, 0]), x[:, :2] * x[:, 2:]) ** 3,
        ),
        "nansum": (X2, lambda T, x: x.nansum(1) ** 3),
        "kron": (X2, lambda T, x: T.kron(x[:2, :2], x[2]) ** 3),
        "tensordot": (X2, lambda T, x: T.tensordot(x, x, ([1], [1])) ** 3),
        "take_along_dim": (X2, lambda T, x: T.take_along_dim(x, T.tensor([[1], [0], [3]]), 1) ** 3),
        "diff": (X2, lambda T, x: x.diff(dim=1) ** 3),
        "movedim": (X2, lambda T, x: x.movedim(0, 1) ** 3),
        "matrix_power": (X2, lambda T, x: T.matrix_power(x[:, :3], 3) * x[:, :3]),
    }
)


def edges(t: Any) -> list[str]:
    """t's backward graph as sorted `Name -> Next, Next` lines (an explicit stack)."""
    if t.grad_fn is None:
        return []
    lines, seen, stack = set(), [], [t.grad_fn]
    while stack:
        n = stack.pop()
        if any(n is m for m in seen):
            continue
        seen.append(n)
        nexts = [f for f, _ in n.next_functions]
        lines.add(f"{n.name()} -> " + ", ".join("None" if f is None else f.name() for f in nexts))
        stack.extend(f for f in nexts if f is not None)
    return sorted(lines)


def run(T: Any, name: str) -> tuple[list[str], np.ndarray, np.ndarray | None]:
    x0, f = OPS[name]
    x = T.tensor(x0, requires_grad=True)
    out = f(T, x)
    if out.dim():
        out = (out * T.tensor(np.linspace(-1.0, 1.5, out.numel()).reshape(tuple(out.shape)))).sum()
    (g,) = T.autograd.grad(out, x, create_graph=True)
    u = T.tensor(np.cos(np.arange(g.numel())).reshape(tuple(g.shape)))
    h = T.autograd.grad((g * u).sum(), x, allow_unused=True)[0] if g.requires_grad else None
    return edges(g), g.detach().numpy(), None if h is None else (h + 0).detach().numpy()


def compare(name: str) -> str | None:
    """None when both engines agree, else a short reason (+ the differing lines)."""
    try:
        ours, g, h = run(dv, name)
    except Exception as e:  # noqa: BLE001 - a survey reports every failure as a row
        return f"detachviz raised {type(e).__name__}: {e}"
    theirs, tg, th = run(torch, name)
    problems = []
    if ours != theirs:
        torch_only = [f"    torch only: {e}" for e in theirs if e not in ours]
        dv_only = [f"    ours only:  {e}" for e in ours if e not in theirs]
        problems.append("graph\n" + "\n".join(torch_only + dv_only))
    if not np.allclose(g, tg, rtol=1e-9, atol=1e-12):
        problems.append("first derivative values")
    if (h is None) != (th is None) or (h is not None and not np.allclose(h, th, 1e-8, 1e-11)):
        problems.append("second derivative values")
    return "; ".join(problems) or None


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    names = [a for a in argv if a != "-v"] or list(OPS)
    bad = 0
    for name in names:
        why = compare(name)
        bad += why is not None
        if why is None:
            print(f"ok    {name}")
        else:
            print(f"DIFF  {name}: {why if verbose else why.splitlines()[0]}")
    print(f"mismatches: {bad} of {len(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
