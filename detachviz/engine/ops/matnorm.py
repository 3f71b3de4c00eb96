"""Matrix norms as torch composes them (torch.linalg.matrix_norm, torch.linalg.norm): the
Frobenius norm is a vector norm over two dims, 'nuc' and +-2 reduce the singular values,
+-1 / +-inf reduce absolute column or row sums; each result's grad_fn is the last op of the
composition, as in torch.
"""

from __future__ import annotations

import math
from typing import Any

from detachviz.engine.ops.decomp import check_matrix, svdvals
from detachviz.engine.ops.reduce import amax, amin
from detachviz.engine.ops.stats import vector_norm
from detachviz.engine.tensor import Tensor


def matrix_norm(
    A: Tensor,  # noqa: N803
    ord: Any = "fro",  # noqa: A002
    dim: tuple[int, int] = (-2, -1),
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Tensor:
    """Torch's composition: 'fro' is a vector norm over both dims, 'nuc' the sum of the
    singular values, +-2 their max/min, +-1 / +-inf the max/min absolute column/row sum."""
    check_matrix("matrix_norm", A)
    if dtype is not None:
        A = A.to(dtype)
    nd = A._data.ndim
    d0, d1 = (d % nd for d in dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord == "nuc" or ord in (2, -2):
        moved = A.permute(*[i for i in range(nd) if i not in (d0, d1)], d0, d1)
        sv = svdvals(moved)
        r = sv.sum(-1) if ord == "nuc" else (amax(sv, -1) if ord == 2 else amin(sv, -1))
    elif ord in (1, -1, math.inf, -math.inf):
        # torch: the absolute sums along one dim, then their max/min along the other
        summed_dim, picked_dim = (d0, d1) if ord in (1, -1) else (d1, d0)
        summed = A.abs().sum(summed_dim, keepdim=keepdim)
        if not keepdim and summed_dim < picked_dim:
            picked_dim -= 1
        pick = amax if ord > 0 else amin
        return pick(summed, picked_dim, keepdim=keepdim)  # type: ignore[no-any-return]
    else:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if keepdim:
        r = r.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
    return r  # type: ignore[no-any-return]


def norm(
    A: Tensor,  # noqa: N803
    ord: Any = None,  # noqa: A002
    dim: Any = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Tensor:
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) == 2 or (dim is None and ord is not None and A._data.ndim == 2):
        return matrix_norm(
            A, "fro" if ord is None else ord, tuple(dim or (-2, -1)), keepdim, dtype=dtype
        )
    if isinstance(ord, str):
        raise RuntimeError(
            f"linalg.norm: If dim is not specified but ord is, the input must be "
            f"1D or 2D. Got {A._data.ndim}D."
        )
    if dim is None and ord is not None and A._data.ndim != 1:
        raise RuntimeError(
            f"linalg.norm: If dim is not specified but ord is, the input must be "
            f"1D or 2D. Got {A._data.ndim}D."
        )
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
