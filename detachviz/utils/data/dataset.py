"""Datasets: Dataset, IterableDataset, TensorDataset, Subset, ConcatDataset, and
random_split (torch's lengths-or-fractions rule and its randperm order)."""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from detachviz import torch as T

Tensor = Any


class Dataset:
    """A map-style dataset: `__getitem__(index)` (and usually `__len__`)."""

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset read by iterating it (`__iter__`); the DataLoader batches what it yields."""

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: Any) -> Any:
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are tuples of the tensors' rows at one index along dim 0."""

    def __init__(self, *tensors: Tensor) -> None:
        if not all(tensors[0].size(0) == t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Any, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return int(self.tensors[0].size(0))


class Subset(Dataset):
    """The dataset's samples at `indices`, in that order."""

    def __init__(self, dataset: Any, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list[int]) -> list[Any]:
        inner = getattr(self.dataset, "__getitems__", None)
        if callable(inner):
            return inner([self.indices[i] for i in indices])  # type: ignore[no-any-return]
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several map-style datasets one after the other."""

    def __init__(self, datasets: Any) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> Any:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = 0 if which == 0 else self.cumulative_sizes[which - 1]
        return self.datasets[which][idx - start]


class ChainDataset(IterableDataset):
    """Several iterable datasets chained."""

    def __init__(self, datasets: Any) -> None:
        self.datasets = datasets

    def __iter__(self) -> Iterator[Any]:
        for d in self.datasets:
            yield from d


def random_split(dataset: Any, lengths: Sequence[Any], generator: Any = None) -> list[Subset]:
    """Split into non-overlapping Subsets of the given lengths (or fractions of the
    dataset, the remainder handed out one by one from the first split), drawing the order
    with torch.randperm on `generator` (default: the global generator)."""
    lengths = list(lengths)
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        counts = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            counts.append(math.floor(len(dataset) * frac))
        for i in range(len(dataset) - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
        for i, n in enumerate(lengths):
            if n == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.",
                    stacklevel=2,
                )
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = T.randperm(sum(lengths), generator=generator).tolist()
    return [
        Subset(dataset, order[end - n : end])
        for end, n in zip(itertools.accumulate(lengths), lengths)
    ]
