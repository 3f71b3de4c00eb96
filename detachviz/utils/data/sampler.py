"""Samplers: which indices a DataLoader reads, in torch's order. RandomSampler without a
generator draws one int64 from the global generator as the seed of a fresh torch.Generator,
then takes randperm from it — lazily, on the first index, exactly when torch does."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any

from detachviz import torch as T


class Sampler:
    """Base class: iterating a sampler yields dataset indices (or lists of them)."""

    def __init__(self, data_source: Any = None) -> None:
        pass

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def _fresh_seeded_generator() -> Any:
    seed = int(T.empty((), dtype=T.int64).random_().item())
    generator = T.Generator()
    generator.manual_seed(seed)
    return generator


class RandomSampler(Sampler):
    def __init__(
        self,
        data_source: Sized,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Any = None,
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, but got "
                f"num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator if self.generator is not None else _fresh_seeded_generator()
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from T.randint(0, n, (32,), dtype=T.int64, generator=generator).tolist()
            yield from T.randint(
                0, n, (self.num_samples % 32,), dtype=T.int64, generator=generator
            ).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from T.randperm(n, generator=generator).tolist()
            yield from T.randperm(n, generator=generator).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    def __init__(self, indices: Sequence[int], generator: Any = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in T.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    def __init__(
        self,
        weights: Sequence[float],
        num_samples: int,
        replacement: bool = True,
        generator: Any = None,
    ) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        w = weights if isinstance(weights, T.Tensor) else T.tensor(list(weights))
        w = w.to(T.float64)
        if w.dim() != 1:
            raise ValueError(
                f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}"
            )
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        drawn = T.multinomial(
            self.weights, self.num_samples, self.replacement, generator=self.generator
        )
        yield from iter(drawn.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of batch_size (the last one shorter unless
    drop_last)."""

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        if self.drop_last:
            return n // self.batch_size
        return (n + self.batch_size - 1) // self.batch_size
