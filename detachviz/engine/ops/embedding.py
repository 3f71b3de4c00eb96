"""Index-to-vector ops: torch.embedding (EmbeddingBackward0: one edge, to the weight; the
indices saved), its max_norm renormalisation (torch.embedding_renorm_, in place, no graph) and
one_hot (integer, no graph).

The weight's gradient scatter-adds the incoming rows at their indices, skipping padding_idx
(and dividing by each index's count for scale_grad_by_freq); the gradient of that scatter
(EmbeddingDenseBackwardBackward0, create_graph) gathers the rows again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine import kernels, state
from detachviz.engine.function import apply, finish
from detachviz.engine.node import Saved, node_class
from detachviz.engine.ops import inplace
from detachviz.engine.ops.saving import attach_saved
from detachviz.engine.tensor import Tensor, init_tensor, wrap

_U64 = 1 << 64


def _signed(padding_idx: int) -> int:
    """The padding index as the rules read it (torch shows -1, "none", as 2**64 - 1)."""
    return padding_idx - _U64 if padding_idx >= _U64 // 2 else padding_idx


def _weights(idx: Any, padding_idx: int, scale: bool) -> Any:
    """Each looked-up row's share of the gradient: 0 at padding_idx, 1/count with scale."""
    flat = idx.reshape(-1)
    w = np.ones(flat.shape, dtype=np.float64)
    if scale:
        counts = np.bincount(flat)
        w = w / counts[flat]
    if padding_idx >= 0:
        w = np.where(flat == padding_idx, 0.0, w)
    return w


# np.add.at costs ~1 µs a row, a rank pass ~10 µs: the passes win while no index repeats
# more than a tenth of the rows (measured: 640 ids of dim 64, 42 repeats 1.5x faster, 90
# repeats 1.8x slower), or up to _MIN_PASSES repeats whatever the count
_MIN_PASSES = 8
_ROWS_PER_PASS = 10


def dense_backward_np(g: Any, idx: Any, num: int, padding_idx: int, scale: bool) -> Any:
    """The (num, dim) weight gradient: each looked-up row's gradient added into its row, in
    order of occurrence (np.add.at's additions, so the same bits). NOTE: np.add.at runs one
    row at a time; grouping the rows by their rank among the repeats of their index makes
    each rank one vectorised `out[ids] += rows` (ids unique within a rank), 2x faster at
    embedding sizes while no index repeats too often (see _ROWS_PER_PASS). Rank 0 (most rows)
    is a plain assignment into the zeros, and one `+= 0` at the end turns the -0.0 that can
    leave (and nothing else) into the 0.0 that np.add.at's `0 + row` gives."""
    dim = g.shape[-1]
    rows = g.reshape(-1, dim)
    if scale or padding_idx >= 0:
        rows = rows * _weights(idx, padding_idx, scale)[:, None].astype(g.dtype)
    out = np.zeros((num, dim), dtype=g.dtype)
    flat = idx.reshape(-1)
    n = flat.size
    if not n:
        return out
    if kernels.available and out.dtype.char in "fd":
        kernels.add_rows(out, flat.astype(np.int64, copy=False), np.ascontiguousarray(rows))
        return out  # np.add.at's additions, compiled
    order = np.argsort(flat, kind="stable")
    ids = flat[order]
    first = np.empty(n, dtype=bool)
    first[0] = True
    np.not_equal(ids[1:], ids[:-1], out=first[1:])
    pos = np.arange(n)
    rank = pos - np.maximum.accumulate(np.where(first, pos, 0))
    passes = int(rank.max()) + 1
    if passes > max(_MIN_PASSES, n // _ROWS_PER_PASS):
        np.add.at(out, flat, rows)
        return out
    out[ids[first]] = np.take(rows, order[first], axis=0)
    for r in range(1, passes):
        m = rank == r
        at = ids[m]
        out[at] = out[at] + np.take(rows, order[m], axis=0)
    out += 0
    return out


def _gather_np(gg: Any, idx: Any, padding_idx: int, scale: bool) -> Any:
    w = _weights(idx, padding_idx, scale).astype(gg.dtype)
    return (gg[idx.reshape(-1)] * w[:, None]).reshape(idx.shape + (gg.shape[-1],))


def _emb_vjp(k: Any, g: Any, s: Any, a: Any) -> Any:
    idx = s[0]._data if isinstance(s[0], Tensor) else s[0]
    pad = _signed(a.padding_idx)
    num = a.weight_sym_argsize_0
    if isinstance(g, Tensor):
        data = dense_backward_np(g._data, idx, num, pad, a.scale_grad_by_freq)
        attrs = (a.padding_idx, a.scale_grad_by_freq, num)
        out = object.__new__(Tensor)
        init_tensor(out, data, g._dtype)
        it = wrap(idx)
        attach_saved(DENSE_BACK, out, (g,), (it,), attrs)
        return finish(DENSE_BACK, "embedding_dense_backward", (g, it), out, attrs,
                      record=(g,), attached=True)  # fmt: skip
    return dense_backward_np(g, idx, num, pad, a.scale_grad_by_freq)


EMBEDDING = node_class(
    "EmbeddingBackward0",
    (_emb_vjp,),
    saved=(Saved("indices", 1, (0,)),),
    attrs=("padding_idx", "scale_grad_by_freq", "sparse", "weight_sym_argsize_0"),
    # the output's tangent: the weight tangent's rows (padding rows included, as forward)
    jvp=(lambda t, p, out, a: t[p[1]], None),
)


def _dense_back_vjp(k: Any, g: Any, s: Any, a: Any) -> Any:
    idx = s[0]._data if isinstance(s[0], Tensor) else s[0]
    gd = g._data if isinstance(g, Tensor) else g
    data = _gather_np(gd, idx, _signed(a.padding_idx), a.scale_grad_by_freq)
    return wrap(data, g._dtype) if isinstance(g, Tensor) else data


DENSE_BACK = node_class(
    "EmbeddingDenseBackwardBackward0",
    (_dense_back_vjp,),
    saved=(Saved("indices", 1, (0,)),),
    attrs=("padding_idx", "scale_grad_by_freq", "num_weights"),
    jvp=(
        lambda t, p, out, a: dense_backward_np(
            t, p[1], a.num_weights, _signed(a.padding_idx), a.scale_grad_by_freq
        ),
        None,
    ),
)


def _check_indices(indices: Tensor, name: str) -> None:
    if indices._dtype.name not in ("int64", "int32"):
        raise RuntimeError(
            f"Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got torch.{indices._dtype.legacy} instead (while checking "
            f"arguments for {name})"
        )


def embedding(
    weight: Tensor,
    indices: Tensor,
    padding_idx: int = -1,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """torch.embedding: the weight's rows at `indices` (any shape), one edge to the weight."""
    _check_indices(indices, "embedding")
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if sparse and weight._requires_grad and state.grad_enabled:
        # NOTE: a frozen (or no_grad) sparse embedding computes what a dense one does
        raise NotImplementedError(
            "Embedding(sparse=True) on a weight that requires grad is not supported by "
            "detachviz: its gradient would be a sparse COO tensor, which detachviz lacks "
            "(sparse=False gives the same values with a dense gradient)"
        )
    idx = indices._data.astype(np.int64, copy=False)
    num = weight._data.shape[0]
    # one pass for both bounds: a negative index is out of range as unsigned
    if idx.size and (idx.view(np.uint64) >= num).any():
        raise IndexError("index out of range in self")
    data = np.take(weight._data, idx, axis=0)  # the rows, contiguous (cheaper than w[idx])
    out = object.__new__(Tensor)
    init_tensor(out, data, weight._dtype)
    pad = int(padding_idx)
    attrs = (pad % _U64, bool(scale_grad_by_freq), bool(sparse), num)
    attach_saved(EMBEDDING, out, (weight,), (indices,), attrs)
    return finish(EMBEDDING, "embedding", (weight, indices), out, attrs, record=(weight,),
                  attached=True)  # fmt: skip


def embedding_renorm_(weight: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """torch.embedding_renorm_: rows looked up whose norm exceeds max_norm are scaled down to
    it (in place, outside the graph, as torch's F.embedding calls it under no_grad)."""
    _check_indices(indices, "embedding_renorm_")
    rows = np.unique(indices._data.reshape(-1))
    w = weight._data
    new = np.array(w)
    norms = np.linalg.norm(w[rows].astype(np.float64), ord=norm_type, axis=1)
    big = norms > max_norm
    scale = (max_norm / (norms[big] + 1e-7)).astype(w.dtype)
    new[rows[big]] = w[rows[big]] * scale[:, None]
    before = state.grad_enabled
    state.grad_enabled = False
    try:
        inplace.copy_(weight, wrap(new))
    finally:
        state.grad_enabled = before
    return weight


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """torch.nn.functional.one_hot: int64 rows with a 1 at each value."""
    if tensor._dtype is not dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    v = tensor._data
    if v.size and v.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        if not v.size:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(v.max()) + 1
    elif v.size and v.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    data = (v[..., None] == np.arange(num_classes)).astype(np.int64)
    return apply(None, "one_hot", (tensor,), data, dtypes.int64)
