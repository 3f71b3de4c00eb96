"""Helpers shared by the nn/optim tests: numpy views of tensors, copying weights into torch."""

from __future__ import annotations

import numpy as np


def to_numpy(t) -> np.ndarray:
    """Values of a detachviz or torch tensor, detached, as float64 numpy."""
    return np.array(t.detach().numpy(), dtype=np.float64)


def copy_into_torch(ours, theirs) -> None:
    """Make a torch module's parameters equal ours (same names, same order)."""
    import torch

    ours_named = list(ours.named_parameters())
    theirs_named = list(theirs.named_parameters())
    assert [n for n, _ in ours_named] == [n for n, _ in theirs_named]
    with torch.no_grad():
        for (_, p), (_, q) in zip(ours_named, theirs_named):
            q.copy_(torch.from_numpy(np.array(p.detach().numpy(), copy=True)))


def grad_chain(fn) -> list[str]:
    """Node names of a backward graph in pre-order (explicit stack), without torch's
    `torch::autograd::` prefix on AccumulateGrad."""
    out = []
    stack = [fn]
    while stack:
        node = stack.pop()
        if node is None:
            out.append("None")
            continue
        out.append(node.name().rsplit("::", 1)[-1])
        stack.extend(reversed([n for n, _ in node.next_functions]))
    return out
