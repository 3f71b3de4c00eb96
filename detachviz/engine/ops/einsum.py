"""torch.einsum as a composition of differentiable ops (so gradients, double backward and
forward AD come from theirs): repeated labels of one operand take a diagonal, labels only
one operand has (and the output lacks) are summed away, and each pair of operands is
contracted with one bmm between permuted, reshaped operands, as torch's sumproduct_pair
does; the result is permuted into the output's label order.
"""

from __future__ import annotations

import string
from typing import Any

from detachviz.engine.ops.layout import diagonal
from detachviz.engine.ops.linalg import bmm
from detachviz.engine.ops.reduce import sum as sum_
from detachviz.engine.tensor import Tensor

_LETTERS = set(string.ascii_letters)


def _parse(equation: str, operands: tuple[Tensor, ...]) -> tuple[list[list[str]], list[str]]:
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
        named = term.replace("...", "")
        for c in named:
            if c not in _LETTERS:
                raise RuntimeError(
                    "einsum(): invalid subscript given at index "
                    f"{eq.index(c)} in the equation string, subscripts must be in [a-zA-Z]"
                )
        n_ell = op._data.ndim - len(named) if "..." in term else 0
        if n_ell < 0 or ("..." not in term and len(named) != op._data.ndim):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(named)}) does not "
                f"match the number of dimensions ({op._data.ndim}) for operand "
                f"{len(parsed)}{'' if '...' in term else ' and no ellipsis was given'}"
            )
        ell_dims = max(ell_dims, n_ell)
        head, _, tail = term.partition("...")
        ell = [f".{ell_dims - n_ell + i}" for i in range(n_ell)] if "..." in term else []
        parsed.append(list(head) + ell + list(tail))
    ell_labels = [f".{i}" for i in range(ell_dims)]
    if arrow:
        head, _, tail = rhs.partition("...")
        out = list(head) + (ell_labels if "..." in rhs else []) + list(tail)
    else:
        counts: dict[str, int] = {}
        for labels in parsed:
            for c in labels:
                if not c.startswith("."):
                    counts[c] = counts.get(c, 0) + 1
        out = ell_labels + sorted(c for c, n in counts.items() if n == 1)
    return parsed, out


def _take_diagonals(x: Tensor, labels: list[str]) -> tuple[Tensor, list[str]]:
    """Repeated labels in one operand: the diagonal over each repeated pair."""
    labels = list(labels)
    while True:
        seen: dict[str, int] = {}
        pair = None
        for i, c in enumerate(labels):
            if c in seen:
                pair = (seen[c], i)
                break
            seen[c] = i
        if pair is None:
            return x, labels
        i, j = pair
        x = diagonal(x, 0, i, j)  # the diagonal goes last
        c = labels[i]
        labels = [lab for k, lab in enumerate(labels) if k not in (i, j)] + [c]
        x = x.permute(*range(len(labels)))  # torch permutes each diagonal operand


def _sum_labels(x: Tensor, labels: list[str], keep: set[str]) -> tuple[Tensor, list[str]]:
    drop = [i for i, c in enumerate(labels) if c not in keep]
    if not drop:
        return x, labels
    return sum_(x, tuple(drop)), [c for c in labels if c in keep]


def _permute(x: Tensor, labels: list[str], order: list[str]) -> Tensor:
    perm = [labels.index(c) for c in order]
    if perm == list(range(len(perm))):
        return x
    return x.permute(*perm)


def _size(x: Tensor, labels: list[str]) -> dict[str, int]:
    return dict(zip(labels, x._data.shape))


def _aligned(x: Tensor, labels: list[str], order: list[str]) -> Tensor:
    """x permuted into `order` (its labels' positions), with size-1 dims for the rest."""
    mine = [c for c in order if c in labels]
    x = _permute(x, labels, mine)
    for i, c in enumerate(order):
        if c not in labels:
            x = x.unsqueeze(i)
    return x


def _contract(
    a: Tensor, la: list[str], b: Tensor, lb: list[str], keep: set[str]
) -> tuple[Tensor, list[str]]:
    """a * b summed over the shared labels not in `keep`, with one bmm."""
    sa, sb = _size(a, la), _size(b, lb)
    batch = [c for c in la if c in lb and c in keep]
    summed = [c for c in la if c in lb and c not in keep]
    left = [c for c in la if c not in lb]
    right = [c for c in lb if c not in la]
    for c in batch + summed:
        if sa[c] != sb[c] and 1 not in (sa[c], sb[c]):
            raise RuntimeError(
                "einsum(): operands do not broadcast with remapped shapes (original->remapped)"
            )

    def prod(labels: list[str], sizes: dict[str, int]) -> int:
        n = 1
        for c in labels:
            n *= sizes[c]
        return n

    if not summed:  # nothing to contract: a broadcast product, as torch's mul
        order = batch + left + right
        return _aligned(a, la, order) * _aligned(b, lb, order), order
    bsizes = {c: max(sa[c], sb[c]) for c in batch}
    a2 = _permute(a, la, batch + left + summed)
    b2 = _permute(b, lb, batch + summed + right)
    a2 = a2.expand(*[bsizes[c] for c in batch], *a2._data.shape[len(batch) :])
    b2 = b2.expand(*[bsizes[c] for c in batch], *b2._data.shape[len(batch) :])
    nb, nl, ns, nr = prod(batch, bsizes), prod(left, sa), prod(summed, sa), prod(right, sb)
    out = bmm(a2.reshape(nb, nl, ns), b2.reshape(nb, ns, nr))
    shape = [bsizes[c] for c in batch] + [sa[c] for c in left] + [sb[c] for c in right]
    return out.view(*shape), batch + left + right


def einsum(equation: str, *operands: Any) -> Tensor:
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for op in operands:
        if not isinstance(op, Tensor):
            raise TypeError(
                f"einsum(): argument 'operands' must be tuple of Tensors, not {type(op).__name__}"
            )
    parsed, out = _parse(equation, operands)
    terms = []
    for op, labels in zip(operands, parsed):
        terms.append(_take_diagonals(op, labels))
    # sum away each operand's labels that no other operand and not the output has
    for i, (x, labels) in enumerate(terms):
        others = {c for j, (_, lab) in enumerate(terms) if j != i for c in lab}
        terms[i] = _sum_labels(x, labels, others | set(out))
    x, labels = terms[0]
    for k in range(1, len(terms)):
        y, ly = terms[k]
        later = {c for _, lab in terms[k + 1 :] for c in lab}
        x, labels = _contract(x, labels, y, ly, later | set(out))
    x, labels = _sum_labels(x, labels, set(out))
    return _permute(x, labels, out)
