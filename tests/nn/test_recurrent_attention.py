"""Recurrent layers, layer norm and attention (engine/ops/rnn.py, layernorm.py, attention.py;
nn/rnn.py, layernorm.py, attention.py, transformer.py) against finite differences and real
torch: gradients of the fused nodes, double backward, forward AD, torch's init draws."""

from __future__ import annotations

import numpy as np
import pytest
from nn_helpers import to_numpy

RNG = np.random.default_rng(12)


def _fd_grad(f, arrays: list[np.ndarray], k: int, eps: float = 1e-6) -> np.ndarray:
    """Central finite differences of the scalar f(*arrays) in arrays[k]."""
    base = arrays[k]
    out = np.zeros_like(base)
    for idx in np.ndindex(base.shape):
        plus = [a.copy() for a in arrays]
        minus = [a.copy() for a in arrays]
        plus[k][idx] += eps
        minus[k][idx] -= eps
        out[idx] = (f(*plus) - f(*minus)) / (2 * eps)
    return out


def _check_fd(T, fn, shapes: list[tuple[int, ...]], tol: float = 1e-6) -> None:
    """fn(*tensors) -> tensor; its weighted sum's gradients match finite differences."""
    arrays = [RNG.standard_normal(s) for s in shapes]
    probe = None

    def scalar(*arrs):
        nonlocal probe
        out = fn(*[T.tensor(a) for a in arrs])
        if probe is None:
            probe = RNG.standard_normal(tuple(out.shape))
        return float((out * T.tensor(probe)).sum().item())

    scalar(*arrays)
    ts = [T.tensor(a, requires_grad=True) for a in arrays]
    (fn(*ts) * T.tensor(probe)).sum().backward()
    for k, t in enumerate(ts):
        np.testing.assert_allclose(to_numpy(t.grad), _fd_grad(scalar, arrays, k), atol=tol)


# ---------------------------------------------------------------- engine ops vs finite diffs


def test_layer_norm_gradients_match_finite_differences(T) -> None:
    _check_fd(T, lambda x, w, b: T.layer_norm(x, (2, 3), w, b), [(2, 2, 3), (2, 3), (2, 3)])
    _check_fd(T, lambda x: T.layer_norm(x, (4,), eps=0.1), [(3, 4)])


def test_unsafe_chunk_gradient_and_pieces_are_not_views(T) -> None:
    _check_fd(
        T, lambda x: T.cat([p * (k + 1) for k, p in enumerate(x.unsafe_chunk(3, 1))], 0), [(2, 6)]
    )
    x = T.randn(2, 6, requires_grad=True)
    a, b = x.unsafe_split(3, 1)
    assert a._base is None and a.grad_fn is b.grad_fn
    assert a.grad_fn.name() == "UnsafeSplitBackward0" and b.output_nr == 1
    b.sum().backward()  # a gets no gradient: its slot is zeros
    assert to_numpy(x.grad).tolist() == [[0, 0, 0, 1, 1, 1]] * 2


def test_baddbmm_and_safe_softmax_gradients(T) -> None:
    from detachviz.engine.ops import attention

    _check_fd(T, lambda m, a, b: T.baddbmm(m, a, b), [(1, 2, 2), (3, 2, 4), (3, 4, 2)])
    _check_fd(T, lambda x: attention.safe_softmax(x, -1), [(2, 5)])
    dead = T.tensor([[-np.inf, -np.inf], [0.0, 1.0]])
    assert to_numpy(attention.safe_softmax(dead, -1))[0].tolist() == [0.0, 0.0]


def test_fused_lstm_layer_backward_equals_the_decomposed_layer(T) -> None:
    """The fused node's hand-written BPTT against autograd through the step-by-step cell."""
    from detachviz.engine.ops import rnn as fused
    from detachviz.nn import rnn

    arrays = [RNG.standard_normal(s) for s in [(4, 2, 3), (12, 3), (12, 3), (12,), (12,)]]
    h0, c0 = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))
    for reverse in (False, True):
        grads = []
        for use_fused in (True, False):
            ts = [T.tensor(a, requires_grad=True) for a in arrays]
            hx = (T.tensor(h0, requires_grad=True), T.tensor(c0, requires_grad=True))
            if use_fused:
                out, hy, cy = fused.mkldnn_lstm_layer(*ts, hx[0], hx[1], reverse)
            else:
                out, (hy, cy) = rnn._run_layer("LSTM", ts[0], hx, ts[1:], reverse)
            (out.pow(2).sum() + hy.sum() * 0.5 + cy.pow(3).sum()).backward()
            grads.append([to_numpy(t.grad) for t in (*ts, *hx)])
        for ours, ref in zip(*grads):
            np.testing.assert_allclose(ours, ref, atol=1e-10)


def test_flash_attention_backward_equals_the_math_path(T) -> None:
    F = T.nn.functional
    arrays = [RNG.standard_normal((1, 2, 3, 4)) for _ in range(3)]
    mask = T.tensor(RNG.standard_normal((3, 3)))
    grads = []
    for flash in (True, False):
        ts = [T.tensor(a, requires_grad=True) for a in arrays]
        q, k, v = ts if flash else [t[0] for t in ts]  # 3-D inputs take the math path
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        name = out.grad_fn.name()
        assert name == (
            "ScaledDotProductFlashAttentionForCpuBackward0" if flash else "UnsafeViewBackward0"
        )
        (out * T.tensor(np.arange(out.numel()).reshape(out.shape) % 3)).sum().backward()
        grads.append([to_numpy(t.grad) for t in ts])
    for ours, ref in zip(*grads):
        np.testing.assert_allclose(ours, ref, atol=1e-12)


def test_layer_norm_double_backward_matches_torch(T, torch) -> None:
    x0 = RNG.standard_normal((2, 5))
    w0 = RNG.standard_normal(5)
    results = []
    for lib in (T, torch):
        x = lib.tensor(x0, requires_grad=True)
        w = lib.tensor(w0, requires_grad=True)
        y = lib.nn.functional.layer_norm(x, (5,), w, None)
        (gx,) = lib.autograd.grad(y.pow(2).sum(), x, create_graph=True)
        gx.pow(2).sum().backward()
        results.append([to_numpy(gx), to_numpy(x.grad), to_numpy(w.grad)])
    for ours, ref in zip(*results):
        np.testing.assert_allclose(ours, ref, atol=1e-10)


def test_forward_ad_of_layer_norm_and_unsafe_chunk_matches_finite_differences(T) -> None:
    from detachviz.engine import forward_ad as fwad

    x0, t0 = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    w0, b0 = RNG.standard_normal(4), RNG.standard_normal(4)

    def f(x):
        y = T.layer_norm(T.tensor(x), (4,), T.tensor(w0), T.tensor(b0))
        return np.concatenate([to_numpy(p) for p in y.unsafe_chunk(2, 1)[::-1]], 1)

    with fwad.dual_level():
        x = fwad.make_dual(T.tensor(x0), T.tensor(t0))
        y = T.layer_norm(x, (4,), T.tensor(w0), T.tensor(b0))
        pieces = [fwad.unpack_dual(p).tangent for p in y.unsafe_chunk(2, 1)[::-1]]
        tangent = np.concatenate([to_numpy(p) for p in pieces], 1)
    fd = (f(x0 + 1e-6 * t0) - f(x0 - 1e-6 * t0)) / 2e-6
    np.testing.assert_allclose(tangent, fd, atol=1e-6)


# ---------------------------------------------------------------- modules vs torch


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("seed", [0, 7])
def test_init_draws_are_torchs_bit_for_bit(T, torch, name: str, seed: int) -> None:
    kwargs = {"num_layers": 2, "bidirectional": True} if not name.endswith("Cell") else {}
    T.manual_seed(seed)
    ours = getattr(T.nn, name)(3, 5, **kwargs)
    torch.manual_seed(seed)
    theirs = getattr(torch.nn, name)(3, 5, **kwargs)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    for p, q in zip(ours.parameters(), theirs.parameters()):
        assert p.tolist() == q.tolist()


def test_multihead_attention_init_order_is_torchs(T, torch) -> None:
    T.manual_seed(3)
    torch.manual_seed(3)
    ours, theirs = T.nn.MultiheadAttention(6, 3), torch.nn.MultiheadAttention(6, 3)
    for (n, p), (m, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert n == m and p.tolist() == q.tolist()


def test_lstm_gradients_match_torch_for_float64_and_float32(T, torch) -> None:
    x0 = RNG.standard_normal((5, 2, 3))
    for dtype in ("float64", "float32"):
        results = []
        for lib in (T, torch):
            lib.manual_seed(1)
            m = lib.nn.LSTM(3, 4, num_layers=2, bidirectional=True).to(getattr(lib, dtype))
            x = lib.tensor(x0, dtype=getattr(lib, dtype), requires_grad=True)
            out, (h, c) = m(x)
            (out.pow(2).sum() + c.sum()).backward()
            results.append([to_numpy(x.grad)] + [to_numpy(p.grad) for p in m.parameters()])
        tol = 1e-12 if dtype == "float64" else 1e-5
        for ours, ref in zip(*results):
            np.testing.assert_allclose(ours, ref, atol=tol)


def test_bad_rnn_input_raises_torchs_errors(T, torch) -> None:
    for lib in (T, torch):
        m = lib.nn.GRU(3, 4)
        with pytest.raises(ValueError, match="GRU: Expected input to be 2D or 3D, got 4D"):
            m(lib.zeros(1, 1, 1, 3))
        with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size"):
            m(lib.zeros(2, 1, 5))
        with pytest.raises(
            RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \[1, 3, 4\]"
        ):
            m(lib.zeros(2, 2, 3), lib.zeros(1, 3, 4))


def test_unsupported_arguments_are_refused(T) -> None:
    with pytest.raises(AttributeError, match="'object' object has no attribute 'dim'"):
        T.nn.LSTM(3, 4)(object())
