"""torch.einsum as a composition of differentiable ops (so gradients, double backward and
forward AD come from theirs): the ops aten's einsum runs, in its order, so the graph has
torch's nodes. Each operand takes a diagonal per repeated label (diagonal + movedim), gets a
size-1 dim per label it lacks (unsqueeze) and is permuted to one layout: the output's labels,
then the contracted ones in label order (A-Z before a-z). One operand: a sum over the
contracted dims. More: the first operand's contracted dims no other has are summed (kept as
size 1), each further operand is multiplied in (mul) or contracted over the dims it is the
last to have with torch's sumproduct_pair (permute, reshape, bmm, view, permute), and one
final view drops the contracted dims. Pairs go left to right (torch without opt_einsum).
"""

from __future__ import annotations

import string
from typing import Any

from detachviz.engine.ops.layout import diagonal
from detachviz.engine.ops.linalg import bmm
from detachviz.engine.tensor import Tensor

_LETTERS = set(string.ascii_letters)
ELLIPSIS = "..."


def _label_order(label: str) -> tuple[int, str]:
    """torch's label numbering: the ellipsis dims, then A-Z, then a-z."""
    if label.startswith("."):
        return (0, f"{int(label[1:]):08d}")
    return (1 if label.isupper() else 2, label)


def _parse(equation: str, operands: tuple[Tensor, ...]) -> tuple[list[list[str]], list[str], int]:
    """Each operand's labels (an ellipsis kept as one "..." entry), the output's labels (the
    ellipsis expanded to ".0", ".1", ...) and the number of ellipsis dims."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError(
            "einsum(): more operands were provided than specified in the equation"
            if len(operands) > len(terms)
            else "einsum(): fewer operands were provided than specified in the equation"
        )
    ell_dims = 0
    parsed: list[list[str]] = []
    for term, op in zip(terms, operands):
        named = term.replace(ELLIPSIS, "")
        for c in named:
            if c not in _LETTERS:
                raise RuntimeError(
                    "einsum(): invalid subscript given at index "
                    f"{eq.index(c)} in the equation string, subscripts must be in [a-zA-Z]"
                )
        n_ell = op._data.ndim - len(named) if ELLIPSIS in term else 0
        if n_ell < 0 or (ELLIPSIS not in term and len(named) != op._data.ndim):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(named)}) does not "
                f"match the number of dimensions ({op._data.ndim}) for operand "
                f"{len(parsed)}{'' if ELLIPSIS in term else ' and no ellipsis was given'}"
            )
        ell_dims = max(ell_dims, n_ell)
        head, _, tail = term.partition(ELLIPSIS)
        parsed.append(list(head) + ([ELLIPSIS] if ELLIPSIS in term else []) + list(tail))
    ell_labels = [f".{i}" for i in range(ell_dims)]
    if arrow:
        head, _, tail = rhs.partition(ELLIPSIS)
        out = list(head) + (ell_labels if ELLIPSIS in rhs else []) + list(tail)
    else:
        counts: dict[str, int] = {}
        for labels in parsed:
            for c in labels:
                if c != ELLIPSIS:
                    counts[c] = counts.get(c, 0) + 1
        out = ell_labels + sorted((c for c, n in counts.items() if n == 1), key=_label_order)
    return parsed, out, ell_dims


def _movedim_last_to(x: Tensor, dim: int) -> Tensor:
    """x.movedim(-1, dim): torch runs it as a permute (a node even when nothing moves)."""
    n = x._data.ndim
    perm = list(range(n - 1))
    perm.insert(dim, n - 1)
    return x.permute(*perm)


def _check_size(sizes: dict[str, int], label: str, size: int, op_index: int) -> None:
    seen = sizes.get(label)
    if seen is None or seen == 1:
        sizes[label] = size
    elif size not in (1, seen):
        if label.startswith("."):
            raise RuntimeError(
                f"einsum(): dimension {label[1:]} covered by ellipsis in operand {op_index}"
                f"has size {size} which does not broadcast with previously seen ellipsis with "
                f"size {seen} for the respective dimension"
            )
        raise RuntimeError(
            f"einsum(): subscript {label} has size {size} for operand {op_index} which does "
            f"not broadcast with previously seen size {seen}"
        )


def _aligned(
    x: Tensor,
    labels: list[str],
    index: dict[str, int],
    ell_dims: int,
    op_index: int,
    sizes: dict[str, int],
) -> Tensor:
    """The operand with one dim per label of the layout `index`, in its order."""
    perm = [-1] * len(index)
    label_dim: dict[str, int] = {}
    j = 0
    for label in labels:
        if label == ELLIPSIS:
            covered = x._data.ndim - (len(labels) - 1)
            for _ in range(ell_dims - covered):
                x = x.unsqueeze(j)
            for k in range(ell_dims):
                if k >= ell_dims - covered:
                    _check_size(sizes, f".{k}", x._data.shape[j], op_index)
                perm[index[f".{k}"]] = j
                j += 1
        elif label in label_dim:
            dim = label_dim[label]
            if x._data.shape[j] != x._data.shape[dim]:
                raise RuntimeError(
                    f"einsum(): subscript {label} is repeated for operand {op_index} but the "
                    f"sizes don't match, {x._data.shape[j]} != {x._data.shape[dim]}"
                )
            x = _movedim_last_to(diagonal(x, 0, dim, j), dim)
        else:
            _check_size(sizes, label, x._data.shape[j], op_index)
            label_dim[label] = j
            perm[index[label]] = j
            j += 1
    for k in range(len(perm)):
        if perm[k] == -1:
            x = x.unsqueeze(-1)
            perm[k] = j
            j += 1
    return x.permute(*perm)


def _sumproduct_pair(left: Tensor, right: Tensor, sum_dims: list[int]) -> Tensor:
    """torch's sumproduct_pair (keepdim True): left * right summed over `sum_dims` (kept with
    size 1), as one bmm between permuted, reshaped operands, viewed and permuted back."""
    if not sum_dims:
        return left * right
    n = left._data.ndim
    lro: list[int] = []
    lo: list[int] = []
    ro: list[int] = []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(n):
        sl, sr = left._data.shape[i] != 1, right._data.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                sum_size *= left._data.shape[i]
            elif sl:
                left = left.sum(i, True)
            elif sr:
                right = right.sum(i, True)
        elif sl and sr:
            lro.append(i)
            lro_size *= left._data.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left._data.shape[i]
        else:
            ro.append(i)
            ro_size *= right._data.shape[i]
    out_size = (
        [left._data.shape[d] for d in lro + lo]
        + [1] * len(sum_dims)
        + [right._data.shape[d] for d in ro]
    )
    lperm = lro + lo + sum_dims + ro
    rperm = lro + sum_dims + ro + lo
    operm = [0] * len(lperm)
    for k, d in enumerate(lperm):
        operm[d] = k
    left = left.permute(*lperm).reshape(lro_size, lo_size, sum_size)
    right = right.permute(*rperm).reshape(lro_size, sum_size, ro_size)
    return bmm(left, right).view(*out_size).permute(*operm)


def einsum(equation: str, *operands: Any) -> Tensor:
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for op in operands:
        if not isinstance(op, Tensor):
            raise TypeError(
                f"einsum(): argument 'operands' must be tuple of Tensors, not {type(op).__name__}"
            )
    parsed, out, ell_dims = _parse(equation, operands)
    present = {c for labels in parsed for c in labels if c != ELLIPSIS}
    present.update(f".{k}" for k in range(ell_dims))
    contracted = sorted(present - set(out), key=_label_order)
    index = {c: i for i, c in enumerate(out + contracted)}
    sizes: dict[str, int] = {}
    ops = [
        _aligned(x, labels, index, ell_dims, i, sizes)
        for i, (x, labels) in enumerate(zip(operands, parsed))
    ]
    n_out, n_all = len(out), len(index)
    # the last operand with a non-1 size in each dim (0 when none)
    last = [0] * n_all
    for d in range(n_all):
        size = ops[0]._data.shape[d]
        for i in range(1, len(ops)):
            s = ops[i]._data.shape[d]
            if s != size and 1 not in (size, s):
                shapes = " ".join(
                    f"{_dims(x._data.shape)}->{_dims(o._data.shape)}" for x, o in zip(operands, ops)
                )
                raise RuntimeError(
                    "einsum(): operands do not broadcast with remapped shapes "
                    f"(original->remapped): {shapes}"
                )
            if s != 1:
                size = s
                last[d] = i
    result = ops[0]
    contracted_dims = list(range(n_out, n_all))
    if len(ops) == 1:
        return result.sum(tuple(contracted_dims)) if contracted_dims else result
    # the contracted dims only the first operand has (size > 1) are summed first; every
    # further one sums the dims it is the last to have, all dims kept (size 1) to the end
    first = [d for d in contracted_dims if last[d] == 0 and result._data.shape[d] != 1]
    if first:
        result = result.sum(tuple(first), True)
    for i in range(1, len(ops)):
        result = _sumproduct_pair(result, ops[i], [d for d in contracted_dims if last[d] == i])
    return result.view(*result._data.shape[:n_out]) if contracted_dims else result


def _dims(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"
