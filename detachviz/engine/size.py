"""`Size`: the dimensions tuple `tensor.shape` returns, printed like `torch.Size([2, 3])`."""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import Any, SupportsIndex, overload


class Size(tuple):
    """A tuple of ints that prints as `torch.Size([...])` and keeps its type through slicing,
    `+` and `*` (as torch's does)."""

    __slots__ = ()

    def __new__(cls, sizes: Iterable[Any] = ()) -> Size:
        dims = []
        for i, d in enumerate(sizes):
            try:
                # NOTE: __index__ accepts ints, numpy ints and 0-d integer tensors but refuses
                # floats, exactly the set torch.Size accepts.
                dims.append(operator.index(d))
            except TypeError:
                raise TypeError(
                    f"torch.Size() takes an iterable of 'int' (item {i} is '{type(d).__name__}')"
                ) from None
        return super().__new__(cls, dims)

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(d) for d in self)}])"

    __str__ = __repr__

    @overload
    def __getitem__(self, key: SupportsIndex) -> int: ...

    @overload
    def __getitem__(self, key: slice) -> Size: ...

    def __getitem__(self, key: SupportsIndex | slice) -> int | Size:
        if isinstance(key, slice):
            return Size(super().__getitem__(key))
        return int(super().__getitem__(key))

    def __add__(self, other: tuple) -> Size:  # type: ignore[override]
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other: tuple) -> Size:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n: SupportsIndex) -> Size:  # type: ignore[override]
        return Size(tuple(self) * operator.index(n))

    __rmul__ = __mul__

    def numel(self) -> int:
        """The number of elements a tensor of this shape holds (1 for `torch.Size([])`)."""
        n = 1
        for d in self:
            n *= d
        return n

    def __reduce__(self) -> tuple[type[Size], tuple[tuple[int, ...]]]:
        return (Size, (tuple(self),))
