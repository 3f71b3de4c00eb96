"""create_graph backward through torch's named backward functions (tanh_backward,
threshold_backward, gelu_backward, ...): one `*BackwardBackward0` node each, as torch draws it,
with second derivatives checked against finite differences and real torch."""

from __future__ import annotations

import numpy as np
import pytest

import detachviz.torch as dvtorch

# name -> f(torch module, x): ops whose backward is one of torch's backward functions
OPS = {
    "tanh": lambda T, x: x.tanh(),
    "sigmoid": lambda T, x: x.sigmoid(),
    "relu": lambda T, x: x.relu(),
    "abs": lambda T, x: x.abs(),
    "leaky_relu": lambda T, x: T.nn.functional.leaky_relu(x, 0.1),
    "elu": lambda T, x: T.nn.functional.elu(x, 0.7),
    "gelu": lambda T, x: T.nn.functional.gelu(x),
    "gelu_tanh": lambda T, x: T.nn.functional.gelu(x, approximate="tanh"),
    "softplus": lambda T, x: T.nn.functional.softplus(x, beta=2.0, threshold=1.5),
    "hardtanh": lambda T, x: T.nn.functional.hardtanh(x, -0.5, 0.5),
    "softmax": lambda T, x: x.softmax(1),
    "log_softmax": lambda T, x: x.log_softmax(0),
    "mse_mean": lambda T, x: T.nn.functional.mse_loss(x, T.tensor(TARGET)),
    "mse_sum": lambda T, x: T.nn.functional.mse_loss(x, T.tensor(TARGET), reduction="sum"),
    "mse_none": lambda T, x: T.nn.functional.mse_loss(x, T.tensor(TARGET), reduction="none"),
}

X = np.array([[-1.3, -0.4, 0.2], [0.45, 0.9, 1.7]])  # away from kinks (0, +-0.5)
V = np.array([[0.3, -1.1, 0.8], [1.5, 0.25, -0.6]])  # the incoming gradient
U = np.array([[0.7, 0.2, -0.9], [-0.4, 1.2, 0.5]])  # the direction of the second derivative
TARGET = np.array([[0.1, -0.2, 0.3], [1.0, 0.4, -0.8]])


def incoming(T, out, v0: np.ndarray):
    """The gradient fed to `out`: V for an elementwise result, a number for a loss."""
    return T.tensor(v0 if out.dim() else np.array(v0[0, 1]), requires_grad=True)


def graph_names(t) -> list[str]:
    """The sorted node names of t's graph (an explicit stack; each node once)."""
    seen: list = []
    stack = [t.grad_fn]
    while stack:
        n = stack.pop()
        if n is None or any(n is m for m in seen):
            continue
        seen.append(n)
        stack.extend(f for f, _ in n.next_functions)
    return sorted(n.name() for n in seen)


def second(T, name: str, x0: np.ndarray, v0: np.ndarray) -> tuple:
    """g = vjp(f, x, v) with create_graph; then d(g.u)/dx and d(g.u)/dv."""
    x = T.tensor(x0, requires_grad=True)
    out = OPS[name](T, x)
    v = incoming(T, out, v0)
    (g,) = T.autograd.grad(out, x, v, create_graph=True)
    dx, dv = T.autograd.grad((g * T.tensor(U)).sum(), (x, v), allow_unused=True)
    return g, dx, dv


@pytest.mark.parametrize("name", sorted(OPS))
def test_second_derivatives_match_finite_differences(name: str) -> None:
    g, dx, dv = second(dvtorch, name, X, V)

    def first(x0: np.ndarray) -> np.ndarray:
        x = dvtorch.tensor(x0, requires_grad=True)
        out = OPS[name](dvtorch, x)
        (gx,) = dvtorch.autograd.grad(out, x, incoming(dvtorch, out, V).detach())
        return (gx.numpy() * U).sum()

    eps = 1e-6
    numeric = np.zeros_like(X)
    for i in np.ndindex(X.shape):
        hi, lo = X.copy(), X.copy()
        hi[i] += eps
        lo[i] -= eps
        numeric[i] = (first(hi) - first(lo)) / (2 * eps)
    zero = dx is None
    np.testing.assert_allclose(0 if zero else dx.numpy(), numeric, atol=1e-6)

    # g = J^T v is linear in v: d(g.u)/dv = J u, the derivative of f along u
    def f(x0: np.ndarray) -> np.ndarray:
        return OPS[name](dvtorch, dvtorch.tensor(x0)).numpy()

    along = (f(X + eps * U) - f(X - eps * U)) / (2 * eps)
    np.testing.assert_allclose(dv.numpy(), along, atol=1e-6)


def test_mse_double_backward_through_the_target(rt) -> None:
    # MAML-style: both sides of the loss require grad; d/d(target) of the first gradient
    def run(T):
        x = T.tensor(X, requires_grad=True)
        t = T.tensor(TARGET, requires_grad=True)
        (gx, gt) = T.autograd.grad(T.nn.functional.mse_loss(x, t), (x, t), create_graph=True)
        second = T.autograd.grad((gx * T.tensor(U)).sum() + (gt * gt).sum(), (x, t))
        return graph_names(gx), graph_names(gt), [d.numpy() for d in second]

    (ours_x, ours_t, ours), (theirs_x, theirs_t, theirs) = run(dvtorch), run(rt)
    assert (ours_x, ours_t) == (theirs_x, theirs_t)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10)


@pytest.mark.parametrize("name", sorted(OPS))
def test_same_nodes_and_values_as_torch(name: str, rt) -> None:
    g, dx, dv = second(dvtorch, name, X, V)
    tg, tdx, tdv = second(rt, name, X, V)
    assert graph_names(g) == graph_names(tg)
    assert type(g.grad_fn).__name__ == type(tg.grad_fn).__name__
    assert (dx is None) == (tdx is None)
    if dx is not None:
        # (+ 0: torch's zero second derivative of abs is a ZeroTensor, which numpy() refuses)
        np.testing.assert_allclose(dx.numpy(), (tdx + 0).numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dv.numpy(), tdv.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["tanh", "sigmoid", "gelu", "softplus", "elu"])
def test_third_derivative_through_the_backward_node(name: str, rt) -> None:
    # the *BackwardBackward0 node is itself differentiable: d/dx of d2/dx2
    def third(T):
        x = T.tensor(X, requires_grad=True)
        (g,) = T.autograd.grad(OPS[name](T, x).sum(), x, create_graph=True)
        (h,) = T.autograd.grad(g.sum(), x, create_graph=True)
        (t3,) = T.autograd.grad(h.sum(), x)
        return t3.numpy()

    np.testing.assert_allclose(third(dvtorch), third(rt), rtol=1e-9, atol=1e-12)


def test_gradient_penalty_through_leaky_relu_keeps_a_graph() -> None:
    # WGAN-GP: the gradient of a LeakyReLU critic must itself require grad
    x = dvtorch.tensor(X, requires_grad=True)
    (g,) = dvtorch.autograd.grad(
        dvtorch.nn.functional.leaky_relu(x, 0.2).sum(), x, create_graph=True
    )
    assert g.requires_grad and type(g.grad_fn).__name__ == "LeakyReluBackwardBackward0"
    assert g.grad_fn._saved_negative_slope == 0.2


# name -> f(torch module, x): ops whose create_graph backward is written out in ops; torch's
# formulas (derivatives.yaml) multiply by numbers with mul.Scalar, add them with add.Scalar,
# mask with where, restore reduced dims with unsqueeze: the graphs must be node for node
FORMULAS = {
    "pow3": lambda T, x: x**3,
    "sqrt": lambda T, x: (x * x + 1).sqrt(),
    "rsqrt": lambda T, x: (x * x + 1).rsqrt(),
    "reciprocal": lambda T, x: (x * x + 1).reciprocal(),
    "mean": lambda T, x: x.mean() * x,
    "mean_dim": lambda T, x: x.mean(1) ** 2,
    "var": lambda T, x: x.var(1),
    "div_number": lambda T, x: (x / 3.0) * x,
    "mul_number": lambda T, x: (x * 3.0) * x,
    "add_alpha": lambda T, x: T.add(x, x * x, alpha=2.0),
    "sub_alpha": lambda T, x: T.sub(x, x * x, alpha=2.0),
    "atan": lambda T, x: x.atan(),
    "tan": lambda T, x: x.tan(),
    "silu": lambda T, x: T.nn.functional.silu(x),
    "clamp": lambda T, x: x.clamp(-0.5, 0.5) * x,
    "where": lambda T, x: T.where(x > 0, x, x * x) * x,
    "logsumexp": lambda T, x: x.logsumexp(1),
    "sum_dim": lambda T, x: x.sum(1) ** 2,
    "expand": lambda T, x: x[:, :1].expand(2, 3) * x,
    "mm": lambda T, x: (x @ x.t()).tanh(),
    "linear_weight_t": lambda T, x: (x @ (x.t() * 1).t().t()).sigmoid(),
    "cat": lambda T, x: T.cat([x, x * x]) ** 2,
    "embedding": lambda T, x: T.nn.functional.embedding(T.tensor([0, 1, 0]), x) ** 2,
}


def edges(t) -> list[str]:
    """t's backward graph as sorted `Name -> Next, Next` lines (an explicit stack)."""
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


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_second_order_graph_and_values_are_torchs(name: str, rt) -> None:
    def run(T):
        x = T.tensor(X, requires_grad=True)
        out = FORMULAS[name](T, x)
        (g,) = T.autograd.grad(out.sum(), x, create_graph=True)
        (h,) = T.autograd.grad((g * T.tensor(U)).sum(), x)
        return edges(g), g.detach().numpy(), h.numpy()

    (ours, g, h), (theirs, tg, th) = run(dvtorch), run(rt)
    assert ours == theirs
    np.testing.assert_allclose(g, tg, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h, th, rtol=1e-10, atol=1e-12)


def test_second_derivative_of_pow_matches_finite_differences() -> None:
    # d/dx of the create_graph gradient 3 x^2 (built as MulBackward1 of PowBackward0): 6 x
    x = dvtorch.tensor(X, requires_grad=True)
    (g,) = dvtorch.autograd.grad((x**3).sum(), x, create_graph=True)
    (h,) = dvtorch.autograd.grad(g.sum(), x)
    eps = 1e-6
    fd = (3 * (X + eps) ** 2 - 3 * (X - eps) ** 2) / (2 * eps)
    np.testing.assert_allclose(h.numpy(), fd, rtol=1e-6)


# ------------------------------------------------------------------------------------------
# backward functions with several results (convolution_backward, native_batch_norm_backward,
# native_layer_norm_backward: one torch node for all the gradients), the losses' backward
# functions, and the formulas of select/index/std/norm/max (scripts/survey_double_backward.py
# surveys every op; these are the ones it found drawn differently from torch)
# ------------------------------------------------------------------------------------------
RNG = np.random.default_rng(7)
IMG = RNG.standard_normal((2, 4, 5, 5))
KER = RNG.standard_normal((6, 2, 3, 3))  # groups=2 over IMG's 4 channels
KER_T = RNG.standard_normal((4, 3, 2, 2))  # a transposed convolution's (in, out, kH, kW)
CH = RNG.standard_normal(4)
ROWS = RNG.standard_normal((3, 2, 5))
FLIP = np.ascontiguousarray(ROWS[::-1])
LABELS = np.array([4, 0, 2])
PIXEL_LABELS = RNG.integers(0, 4, (2, 5, 5))


def _F(T):
    return T.nn.functional


# name -> (leaf arrays, f(T, *leaves) -> output); every leaf requires grad
MULTI = {
    "conv2d_stride_groups_bias": (
        (IMG, KER, CH[:2].repeat(3)),
        lambda T, x, w, b: _F(T).conv2d(x, w, b, stride=2, padding=1, groups=2).tanh(),
    ),
    "conv2d_dilated_input_only": (
        (IMG,),
        lambda T, x: _F(T).conv2d(x, T.tensor(KER), dilation=2, padding=2, groups=2).sigmoid(),
    ),
    "conv_transpose2d": (
        (IMG, KER_T),
        lambda T, x, w: _F(T).conv_transpose2d(x, w, stride=2, output_padding=1).tanh(),
    ),
    "conv1d_weight_only": (
        (KER[:, :, 1],),
        lambda T, w: _F(T).conv1d(T.tensor(IMG[:, :, 2]), w, groups=2) ** 2,
    ),
    "batch_norm_train_affine": (
        (IMG, CH + 2, CH),
        lambda T, x, w, b: _F(T).batch_norm(x, None, None, w, b, training=True) ** 3,
    ),
    "batch_norm_train_plain": (
        (IMG[:, :, 0],),
        lambda T, x: _F(T).batch_norm(x, None, None, training=True, eps=0.1).tanh(),
    ),
    "batch_norm_eval_affine": (
        (IMG, CH + 2, CH),
        lambda T, x, w, b: (
            _F(T).batch_norm(x, T.tensor(CH / 3), T.tensor(CH * CH + 0.5), w, b, training=False)
            ** 3
        ),
    ),
    "layer_norm_affine": (
        (ROWS, ROWS[0] + 1.5, ROWS[1]),
        lambda T, x, w, b: _F(T).layer_norm(x, (2, 5), w, b) ** 3,
    ),
    "layer_norm_plain": ((ROWS,), lambda T, x: _F(T).layer_norm(x, (5,), eps=0.01).tanh()),
    "cross_entropy_mean": (
        (ROWS[:, 0],),
        lambda T, x: _F(T).cross_entropy(x, T.tensor(LABELS)) * x.sum(),
    ),
    "cross_entropy_weighted_ignore": (
        (ROWS[:, 1],),
        lambda T, x: _F(T).cross_entropy(
            x, T.tensor(LABELS), weight=T.tensor(CH[:1].repeat(5) + 2), ignore_index=0
        ),
    ),
    "nll_none": (
        (ROWS[:, 0],),
        lambda T, x: _F(T).nll_loss(x.log_softmax(1), T.tensor(LABELS), reduction="none") ** 2,
    ),
    "nll_2d_sum": (
        (IMG,),
        lambda T, x: _F(T).nll_loss(x.log_softmax(1), T.tensor(PIXEL_LABELS), reduction="sum"),
    ),
    "select": ((ROWS,), lambda T, x: x[1, :, 2] ** 3),
    "slice": ((ROWS,), lambda T, x: x[:, 1:, ::2] ** 3),
    "index": ((ROWS,), lambda T, x: x[T.tensor([0, 2, 0])] ** 3),
    # backward functions with an edge to the forward's input as well (torch's formula for it
    # is zeros or the result): avg_pool2d_backward, elu_backward(is_result=True)
    "avg_pool2d": (
        (IMG,),
        lambda T, x: _F(T).avg_pool2d(x, 3, 2, padding=1, count_include_pad=False) ** 3,
    ),
    "elu_inplace": ((ROWS,), lambda T, x: _F(T).elu_(x * 1, 0.7) ** 2),
    # losses (Hessians through them): one *LossBackwardBackward0 each, or torch's formula
    "smooth_l1_mean": (
        (ROWS, FLIP * 0.5),
        lambda T, x, t: _F(T).smooth_l1_loss(x, t, beta=0.8) * 3,
    ),
    "huber_none": (
        (ROWS, FLIP * 0.5),
        lambda T, x, t: _F(T).huber_loss(x, t, reduction="none", delta=0.6),
    ),
    "bce_weighted": (
        (ROWS,),
        lambda T, x: _F(T).binary_cross_entropy(
            x.sigmoid(), T.tensor(FLIP).sigmoid(), weight=T.tensor(ROWS[0] + 2)
        ),
    ),
    "bce_logits_mean": (
        (ROWS, FLIP),
        lambda T, x, t: _F(T).binary_cross_entropy_with_logits(x, t.sigmoid()),
    ),
    # reductions whose formulas mask and unsqueeze (std, norm, normalize, max, amax)
    "std_dim": ((ROWS,), lambda T, x: x.std(1) ** 2),
    "norm_dim": ((ROWS,), lambda T, x: T.linalg.vector_norm(x, dim=(0, 2))),
    "normalize": ((ROWS,), lambda T, x: _F(T).normalize(x, dim=2) * x),
    "cosine_similarity": (
        (ROWS, FLIP),
        lambda T, x, y: _F(T).cosine_similarity(x, y, dim=2) ** 2,
    ),
    "max_all": ((ROWS,), lambda T, x: x.max() * x),
    "max_dim": ((ROWS,), lambda T, x: x.max(1).values ** 2),
    "amin": ((ROWS,), lambda T, x: x.amin((0, 2)) ** 2),
}


def _leaves(T, name: str) -> list:
    return [T.tensor(a, requires_grad=True) for a in MULTI[name][0]]


def _scalar(T, out):
    """A scalar of `out` with a different weight per element (a plain sum hides mistakes)."""
    if not out.dim():
        return out
    n = out.numel()
    return (out * T.tensor(np.linspace(-1.0, 1.5, n).reshape(tuple(out.shape)))).sum()


def _directions(T, gs) -> list:
    return [T.tensor(np.cos(np.arange(g.numel()) + 0.3 * i).reshape(tuple(g.shape))) for i, g in
            enumerate(gs)]  # fmt: skip


def _multi_second(T, name: str):
    """(graph lines of every first gradient, their values, the second derivatives)."""
    xs = _leaves(T, name)
    gs = T.autograd.grad(_scalar(T, MULTI[name][1](T, *xs)), xs, create_graph=True)
    dot = sum((g * u).sum() for g, u in zip(gs, _directions(T, gs)))
    hs = T.autograd.grad(dot, xs, allow_unused=True)
    lines = sorted({line for g in gs for line in edges(g)})
    return lines, [g.detach().numpy() for g in gs], [None if h is None else h.numpy() for h in hs]


@pytest.mark.parametrize("name", sorted(MULTI))
def test_multi_result_backward_is_torchs_node(name: str, rt) -> None:
    (ours, g, h), (theirs, tg, th) = _multi_second(dvtorch, name), _multi_second(rt, name)
    assert ours == theirs
    for a, b in zip(g, tg):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    for a, b in zip(h, th):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize(
    "name",
    ["conv2d_stride_groups_bias", "batch_norm_train_affine", "batch_norm_eval_affine",
     "layer_norm_affine", "cross_entropy_weighted_ignore", "nll_2d_sum", "index",
     "elu_inplace", "smooth_l1_mean", "bce_weighted", "bce_logits_mean", "std_dim",
     "cosine_similarity", "max_dim"],
)  # fmt: skip
def test_multi_result_second_derivatives_match_finite_differences(name: str) -> None:
    # d/d leaf_j of sum_i <grad_i, u_i>, against central differences of the first gradients
    arrays, f = MULTI[name]
    xs = _leaves(dvtorch, name)
    gs = dvtorch.autograd.grad(_scalar(dvtorch, f(dvtorch, *xs)), xs, create_graph=True)
    us = [u.numpy() for u in _directions(dvtorch, gs)]
    dot = sum((g * dvtorch.tensor(u)).sum() for g, u in zip(gs, us))
    hs = dvtorch.autograd.grad(dot, xs, allow_unused=True)

    def first(values: list) -> float:
        ys = [dvtorch.tensor(v, requires_grad=True) for v in values]
        grads = dvtorch.autograd.grad(_scalar(dvtorch, f(dvtorch, *ys)), ys)
        return sum(float((g.numpy() * u).sum()) for g, u in zip(grads, us))

    eps = 1e-6
    for j, a in enumerate(arrays):
        numeric = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            hi = [v.copy() for v in arrays]
            lo = [v.copy() for v in arrays]
            hi[j][i] += eps
            lo[j][i] -= eps
            numeric[i] = (first(hi) - first(lo)) / (2 * eps)
        got = np.zeros_like(a) if hs[j] is None else hs[j].numpy()
        np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "name",
    ["conv2d_stride_groups_bias", "conv1d_weight_only", "batch_norm_train_affine",
     "layer_norm_affine", "cross_entropy_mean", "select", "avg_pool2d", "elu_inplace"],
)  # fmt: skip
def test_multi_result_third_derivative_is_torchs(name: str, rt) -> None:
    # the *BackwardBackward0 node is differentiable again (torch's formulas use the saved
    # statistics, so both engines differentiate the same function). NOTE: not a transposed
    # convolution with output_padding, whose third derivative torch itself refuses
    def third(T):
        xs = _leaves(T, name)
        gs = T.autograd.grad(_scalar(T, MULTI[name][1](T, *xs)), xs, create_graph=True)
        hs = T.autograd.grad(sum((g * g).sum() for g in gs), xs, create_graph=True)
        used = [h for h in hs if h is not None]
        return [t.numpy() for t in T.autograd.grad(sum(h.sum() for h in used), xs)]

    for a, b in zip(third(dvtorch), third(rt)):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)


def test_one_node_gives_every_gradient_of_a_convolution(rt) -> None:
    # torch's convolution_backward returns all three gradients: one node, outputs 0, 1, 2
    def nodes(T):
        xs = _leaves(T, "conv2d_stride_groups_bias")
        out = MULTI["conv2d_stride_groups_bias"][1](T, *xs)
        gs = T.autograd.grad(_scalar(T, out), xs, create_graph=True)
        saved = sorted(a for a in dir(gs[1].grad_fn) if a.startswith("_saved_"))
        return [g.grad_fn is gs[0].grad_fn for g in gs], saved, gs[0].grad_fn._saved_groups

    assert nodes(dvtorch) == nodes(rt) == nodes(rt)[:2] + (2,)
