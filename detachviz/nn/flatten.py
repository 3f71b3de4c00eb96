"""`Flatten` and `Unflatten`: reshape modules over a range of dims (torch's ViewBackward0)."""

from __future__ import annotations

from typing import Any

from detachviz.nn.module import Module


class Flatten(Module):
    """torch.nn.Flatten: dims start_dim..end_dim become one (batch dim kept by default)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Any) -> Any:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


def unflatten(input: Any, dim: int, sizes: Any) -> Any:
    """Tensor.unflatten: dim becomes `sizes` (one -1 allowed), as one view/reshape."""
    shape = list(input.shape)
    nd = len(shape)
    if not -nd <= dim < max(nd, 1):
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})"
        )
    d = dim % nd
    sizes = list(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    known = 1
    for s in sizes:
        if s != -1:
            known *= s
    if -1 in sizes:
        sizes[sizes.index(-1)] = shape[d] // known if known else 0
    elif known != shape[d]:
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
            f"{dim} ({shape[d]}) in the input tensor"
        )
    return input.reshape(*shape[:d], *sizes, *shape[d + 1 :])


class Unflatten(Module):
    """torch.nn.Unflatten: dim `dim` becomes `unflattened_size`."""

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Any) -> Any:
        return unflatten(input, self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
