"""Packed sequences (nn.utils.rnn, RNNs on PackedSequence), LSTM projections, the full
Transformer, MultiheadAttention's kdim/vdim/bias_kv/zero_attn, circular padding and torch's
unstable sort order, against real torch (values, gradients, grad_fn graphs) and finite
differences."""

from __future__ import annotations

import numpy as np
import pytest
from nn_helpers import copy_into_torch, to_numpy

RNG = np.random.default_rng(16)


def _graph(fn) -> list[str]:
    """Node names of a backward graph, each node expanded once (explicit stack)."""
    out, stack, seen = [], [fn], set()
    while stack:
        node = stack.pop()
        if node is None:
            out.append("None")
            continue
        out.append(node.name().rsplit("::", 1)[-1])
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend(reversed([n for n, _ in node.next_functions]))
    return out


def _fd(f, a: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    out = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        p, m = a.copy(), a.copy()
        p[idx] += eps
        m[idx] -= eps
        out[idx] = (f(p) - f(m)) / (2 * eps)
    return out


def _seqs(lib, dtype, lengths=(4, 2, 5)):
    arrays = [RNG.standard_normal((n, 3)) for n in lengths]
    return [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True) for a in arrays]


@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_rnns_on_packed_sequences_match_torch(T, torch, mode: str, dtype: str) -> None:
    arrays = [RNG.standard_normal((n, 3)) for n in (4, 2, 5)]
    h0 = RNG.standard_normal((4, 3, 2))
    results = []
    for lib in (T, torch):
        lib.manual_seed(2)
        extra = {"proj_size": 1} if mode == "LSTM" else {}
        m = getattr(lib.nn, mode)(3, 2, num_layers=2, bidirectional=True, **extra)
        m = m.to(getattr(lib, dtype))
        seqs = [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True) for a in arrays]
        packed = lib.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False)
        h = lib.tensor(h0[:, :, : (1 if mode == "LSTM" else 2)], dtype=getattr(lib, dtype))
        h.requires_grad_()
        hx = (h, lib.zeros(4, 3, 2, dtype=getattr(lib, dtype))) if mode == "LSTM" else h
        out, hn = m(packed, hx)
        padded, lengths = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
        last = hn[0] if mode == "LSTM" else hn
        (padded.sin().sum() + last.pow(2).sum()).backward()
        results.append(
            {
                "padded": to_numpy(padded),
                "lengths": lengths.tolist(),
                "h": to_numpy(last),
                "grads": [to_numpy(s.grad) for s in seqs] + [to_numpy(h.grad)],
                "params": [to_numpy(p.grad) for p in m.parameters()],
                "graph": _graph(last.grad_fn),
                "out_graph": _graph(padded.grad_fn)[:60],
            }
        )
    ours, ref = results
    tol = 1e-10 if dtype == "float64" else 1e-5
    assert ours["lengths"] == ref["lengths"] == [4, 2, 5]
    assert ours["graph"] == ref["graph"]
    assert ours["out_graph"] == ref["out_graph"]
    np.testing.assert_allclose(ours["padded"], ref["padded"], atol=tol)
    np.testing.assert_allclose(ours["h"], ref["h"], atol=tol)
    for a, b in zip(ours["grads"] + ours["params"], ref["grads"] + ref["params"]):
        np.testing.assert_allclose(a, b, atol=tol)


def test_pack_and_pad_gradients_match_finite_differences(T) -> None:
    x0 = RNG.standard_normal((3, 5, 2))  # batch_first, lengths 5, 3, 1
    probe = RNG.standard_normal((6, 3, 2))
    rnn = T.nn.utils.rnn

    def f(a: np.ndarray, grad: bool = False):
        x = T.tensor(a, requires_grad=grad)
        packed = rnn.pack_padded_sequence(x, [1, 5, 3], batch_first=True, enforce_sorted=False)
        padded, _ = rnn.pad_packed_sequence(packed, total_length=6, padding_value=-2.0)
        return x, (padded.pow(2) * T.tensor(probe)).sum()

    x, loss = f(x0, True)
    loss.backward()
    np.testing.assert_allclose(to_numpy(x.grad), _fd(lambda a: f(a)[1].item(), x0), atol=1e-6)
    # the padded positions past each length get no gradient
    assert np.all(to_numpy(x.grad)[0, 1:] == 0) and np.all(to_numpy(x.grad)[2, 3:] == 0)


def test_pad_sequence_and_double_backward_of_pack_match_torch(T, torch) -> None:
    arrays = [RNG.standard_normal((n, 2)) for n in (2, 4, 3)]
    results = []
    for lib in (T, torch):
        seqs = [lib.tensor(a, requires_grad=True) for a in arrays]
        left = lib.nn.utils.rnn.pad_sequence(seqs, True, -1.0, "left")
        right = lib.nn.utils.rnn.pad_sequence(seqs)
        x = lib.tensor(np.stack([np.pad(a, ((0, 4 - len(a)), (0, 0))) for a in arrays], 1))
        x.requires_grad_()
        data = lib.nn.utils.rnn.pack_padded_sequence(x, [2, 4, 3], enforce_sorted=False).data
        (g,) = lib.autograd.grad(data.sin().sum(), x, create_graph=True)
        g.sum().backward()
        (left.exp().sum() + (right * 2).sum()).backward()
        results.append(
            (to_numpy(left), to_numpy(right), to_numpy(x.grad), [to_numpy(s.grad) for s in seqs])
        )
        results.append((_graph(left.grad_fn), _graph(g.grad_fn)))
    (ours, our_graphs), (ref, ref_graphs) = results[:2], results[2:]
    assert our_graphs == ref_graphs
    for a, b in zip(ours[:3], ref[:3]):
        np.testing.assert_allclose(a, b, atol=1e-12)
    for a, b in zip(ours[3], ref[3]):
        np.testing.assert_allclose(a, b, atol=1e-12)


def test_packed_sequence_errors_are_torchs(T, torch) -> None:
    for lib in (T, torch):
        rnn = lib.nn.utils.rnn
        with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
            rnn.pack_padded_sequence(lib.zeros(4, 2, 3), [1, 3])
        with pytest.raises(RuntimeError, match="has to be greater than 0"):
            rnn.pack_padded_sequence(lib.zeros(4, 2, 3), [3, 0])
        with pytest.raises(RuntimeError, match=r"but got 3 \(batch_size=2\)"):
            rnn.pack_padded_sequence(lib.zeros(4, 2, 3), [3, 2, 1])
        with pytest.raises(ValueError, match="total_length=1 and max sequence length being 3"):
            rnn.pad_packed_sequence(rnn.pack_sequence([lib.zeros(3), lib.zeros(2)]), False, 0, 1)
        with pytest.raises(RuntimeError, match="received an empty list of sequences"):
            rnn.pad_sequence([])
        with pytest.raises(RuntimeError, match="input must have 2 dimensions, got 3"):
            lib.nn.GRU(3, 2)(rnn.PackedSequence(lib.zeros(2, 1, 3), lib.tensor([1, 1])))


def test_lstm_projection_init_and_errors_are_torchs(T, torch) -> None:
    for seed in (0, 5):
        T.manual_seed(seed)
        torch.manual_seed(seed)
        ours = T.nn.LSTM(3, 4, proj_size=2, num_layers=2, bidirectional=True)
        ref = torch.nn.LSTM(3, 4, proj_size=2, num_layers=2, bidirectional=True)
        assert str(ours) == str(ref)
        for (n, p), (m, q) in zip(ours.named_parameters(), ref.named_parameters()):
            assert n == m and p.tolist() == q.tolist()
    for lib in (T, torch):
        with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
            lib.nn.LSTM(3, 4, proj_size=4)
        with pytest.raises(ValueError, match="only supported for LSTM"):
            lib.nn.GRU(3, 4, proj_size=1)
        with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 2, 2\)"):
            lib.nn.LSTM(3, 4, proj_size=2)(lib.zeros(5, 2, 3), (lib.zeros(1, 2, 4),) * 2)


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_matches_torch(T, torch, norm_first: bool) -> None:
    src0, tgt0 = RNG.standard_normal((2, 5, 8)), RNG.standard_normal((2, 4, 8))
    results = []
    for lib in (T, torch):
        lib.manual_seed(4)
        m = lib.nn.Transformer(8, 2, 2, 2, 16, 0.0, "gelu", batch_first=True, norm_first=norm_first)
        m = m.double()
        src = lib.tensor(src0, requires_grad=True)
        tgt = lib.tensor(tgt0, requires_grad=True)
        mask = lib.nn.Transformer.generate_square_subsequent_mask(4, dtype=lib.float64)
        kpm = lib.tensor([[False] * 5, [False] * 3 + [True] * 2])
        out = m(src, tgt, tgt_mask=mask, src_key_padding_mask=kpm, memory_key_padding_mask=kpm)
        (out * lib.tensor(np.linspace(-1, 1, out.numel()).reshape(out.shape))).sum().backward()
        grads = [to_numpy(src.grad), to_numpy(tgt.grad)] + [
            to_numpy(p.grad) for p in m.parameters()
        ]
        results.append((str(m), to_numpy(out), grads, _graph(out.grad_fn)))
    (s1, o1, g1, n1), (s2, o2, g2, n2) = results
    assert s1 == s2 and n1 == n2
    np.testing.assert_allclose(o1, o2, atol=1e-10)
    for a, b in zip(g1, g2):
        np.testing.assert_allclose(a, b, atol=1e-10)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"kdim": 3, "vdim": 5},
        {"add_bias_kv": True},
        {"add_zero_attn": True, "kdim": 3, "vdim": 5, "add_bias_kv": True, "bias": False},
    ],
)
@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_attention_variants_match_torch(T, torch, kwargs, need_weights: bool) -> None:
    q0 = RNG.standard_normal((4, 2, 6))
    k0 = RNG.standard_normal((3, 2, kwargs.get("kdim", 6)))
    v0 = RNG.standard_normal((3, 2, kwargs.get("vdim", 6)))
    results = []
    for lib in (T, torch):
        lib.manual_seed(9)
        m = lib.nn.MultiheadAttention(6, 2, **kwargs).double()
        q, k, v = (lib.tensor(a, requires_grad=True) for a in (q0, k0, v0))
        kpm = lib.tensor([[False, False, True], [False, False, False]])
        out, w = m(q, k, v, key_padding_mask=kpm, need_weights=need_weights)
        loss = out.sin().sum() + (0 if w is None else w.pow(2).sum())
        loss.backward()
        grads = [to_numpy(t.grad) for t in (q, k, v)] + [to_numpy(p.grad) for p in m.parameters()]
        results.append(([n for n, _ in m.named_parameters()], to_numpy(out), grads))
        results.append(_graph(out.grad_fn))
    (names1, o1, g1), graph1, (names2, o2, g2), graph2 = results
    assert names1 == names2 and graph1 == graph2
    np.testing.assert_allclose(o1, o2, atol=1e-12)
    for a, b in zip(g1, g2):
        np.testing.assert_allclose(a, b, atol=1e-12)


def test_multihead_attention_init_with_kdim_and_bias_kv_is_torchs(T, torch) -> None:
    T.manual_seed(3)
    torch.manual_seed(3)
    ours = T.nn.MultiheadAttention(6, 3, kdim=2, vdim=4, add_bias_kv=True)
    ref = torch.nn.MultiheadAttention(6, 3, kdim=2, vdim=4, add_bias_kv=True)
    for (n, p), (m, q) in zip(ours.named_parameters(), ref.named_parameters()):
        assert n == m and p.tolist() == q.tolist()


@pytest.mark.parametrize("pad", [(1, 2), (2, 0, 1, 3), (-1, 2, 1, 0), (1, 1, 0, 2, 2, 1)])
def test_circular_pad_matches_torch_and_finite_differences(T, torch, pad) -> None:
    shape = {2: (2, 2, 4), 4: (1, 2, 3, 4), 6: (1, 1, 3, 3, 4)}[len(pad)]
    x0 = RNG.standard_normal(shape)
    results = []
    for lib in (T, torch):
        x = lib.tensor(x0, requires_grad=True)
        y = lib.nn.functional.pad(x, pad, mode="circular")
        probe = lib.tensor(np.arange(y.numel(), dtype=np.float64).reshape(y.shape))
        (y * probe).sum().backward()
        results.append((to_numpy(y), to_numpy(x.grad), _graph(y.grad_fn), y._version))
    (y1, g1, n1, v1), (y2, g2, n2, v2) = results
    assert n1 == n2 and v1 == v2
    np.testing.assert_array_equal(y1, y2)
    np.testing.assert_array_equal(g1, g2)

    def f(a):
        y = T.nn.functional.pad(T.tensor(a), pad, mode="circular")
        return (y * T.tensor(np.arange(y.numel(), dtype=np.float64).reshape(y.shape))).sum().item()

    np.testing.assert_allclose(g1, _fd(f, x0), atol=1e-6)


def test_circular_conv_matches_torch(T, torch) -> None:
    x0 = RNG.standard_normal((1, 2, 5, 5))
    results = []
    for lib in (T, torch):
        lib.manual_seed(1)
        conv = lib.nn.Conv2d(2, 3, 3, padding=2, padding_mode="circular").double()
        x = lib.tensor(x0, requires_grad=True)
        conv(x).pow(2).sum().backward()
        results.append([to_numpy(x.grad), to_numpy(conv.weight.grad)])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, atol=1e-10)


@pytest.mark.parametrize("n", [16, 17, 40, 300])
def test_unstable_sort_leaves_ties_where_torch_does(T, torch, n: int) -> None:
    x0 = RNG.integers(0, 4, (3, n)).astype(np.float32)
    x0[0, ::7] = np.nan
    for descending in (False, True):
        for stable in (None, False, True):
            kw = {} if stable is None else {"stable": stable}
            ours = T.sort(T.tensor(x0), dim=1, descending=descending, **kw).indices.tolist()
            ref = torch.sort(torch.tensor(x0), dim=1, descending=descending, **kw).indices
            assert ours == ref.tolist()
            ours_t = T.argsort(T.tensor(x0.T.copy()), dim=0, descending=descending, **kw)
            ref_t = torch.argsort(torch.tensor(x0.T.copy()), dim=0, descending=descending, **kw)
            assert ours_t.tolist() == ref_t.tolist()


def test_sparse_embedding_runs_without_a_gradient_and_refuses_one(T, torch) -> None:
    w = RNG.standard_normal((5, 3))
    ours = T.nn.Embedding.from_pretrained(T.tensor(w), sparse=True)
    ref = torch.nn.Embedding.from_pretrained(torch.tensor(w), sparse=True)
    assert str(ours) == str(ref)
    assert ours(T.tensor([4, 1])).tolist() == ref(torch.tensor([4, 1])).tolist()
    with pytest.raises(NotImplementedError, match="sparse COO tensor"):
        T.nn.Embedding(5, 3, sparse=True)(T.tensor([1]))


def test_copied_torch_weights_give_torchs_packed_gru_output(T, torch) -> None:
    ours, ref = T.nn.GRU(3, 4, batch_first=True), torch.nn.GRU(3, 4, batch_first=True)
    copy_into_torch(ours, ref)
    x0 = RNG.standard_normal((2, 3, 3)).astype(np.float32)
    outs = []
    for lib, m in ((T, ours), (torch, ref)):
        packed = lib.nn.utils.rnn.pack_padded_sequence(lib.tensor(x0), [3, 2], batch_first=True)
        out, h = m(packed)
        outs.append((to_numpy(out.data), to_numpy(h), out.batch_sizes.tolist()))
    np.testing.assert_allclose(outs[0][0], outs[1][0], atol=1e-6)
    np.testing.assert_allclose(outs[0][1], outs[1][1], atol=1e-6)
    assert outs[0][2] == outs[1][2] == [2, 2, 1]
