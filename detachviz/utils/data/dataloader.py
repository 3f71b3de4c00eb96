"""DataLoader: batches of a dataset through a sampler and a collate function, in the main
process. Each `iter(loader)` draws one int64 from the generator first (torch's `_base_seed`,
drawn even when nothing is shuffled), so the global random stream after a loop is torch's.
num_workers > 0 runs in-process too (same batches, same order; a warning says so)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import Any

from detachviz import torch as T
from detachviz.utils.data.collate import default_collate, default_convert
from detachviz.utils.data.dataset import IterableDataset
from detachviz.utils.data.sampler import BatchSampler, RandomSampler, SequentialSampler


class DataLoader:
    def __init__(
        self,
        dataset: Any,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Any = None,
        batch_sampler: Any = None,
        num_workers: int = 0,
        collate_fn: Callable[[Any], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], None] | None = None,
        multiprocessing_context: Any = None,
        generator: Any = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable "
                "multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing.let "
                "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None."
            )
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if num_workers > 0:
            warnings.warn(
                f"detachviz runs DataLoader(num_workers={num_workers}) in the main process: "
                "the same batches in the same order"
                + ("; worker_init_fn is not called" if worker_init_fn is not None else ""),
                stacklevel=2,
            )
        if pin_memory:
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, then device "
                "pinned memory won't be used.",
                stacklevel=2,
            )
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (False, None):
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified shuffle option, "
                    f"but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified sampler option, "
                    f"but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler "
                    f"option, but got batch_sampler={batch_sampler}"
                )
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with "
                "drop_last"
            )
        if sampler is None and not self._iterable:
            sampler = (
                RandomSampler(dataset, generator=generator)
                if shuffle
                else SequentialSampler(dataset)
            )
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None or (self._iterable and self.batch_size is not None)

    def __iter__(self) -> Iterator[Any]:
        if self._iterable:
            batches = self._iterable_batches()
        else:
            index = self.batch_sampler if self.batch_sampler is not None else self.sampler
            batches = self._map_batches(iter(index))
        # torch's _BaseDataLoaderIter draws its base seed when the iterator is made, before
        # the sampler draws anything (the sampler only starts at the first batch)
        T.empty((), dtype=T.int64).random_(generator=self.generator)
        return batches

    def _map_batches(self, indices: Iterator[Any]) -> Iterator[Any]:
        many = getattr(self.dataset, "__getitems__", None)
        for index in indices:
            if not self._auto_collation:
                yield self.collate_fn(self.dataset[index])
            elif callable(many):
                yield self.collate_fn(many(index))
            else:
                yield self.collate_fn([self.dataset[i] for i in index])

    def _iterable_batches(self) -> Iterator[Any]:
        items = iter(self.dataset)
        if self.batch_size is None:
            for item in items:
                yield self.collate_fn(item)
            return
        while True:
            batch = []
            for item in items:
                batch.append(item)
                if len(batch) == self.batch_size:
                    break
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield self.collate_fn(batch)
            if len(batch) < self.batch_size:
                return

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                bs = self.batch_size
                return n // bs if self.drop_last else (n + bs - 1) // bs
            return n
        index = self.batch_sampler if self.batch_sampler is not None else self.sampler
        return len(index)


def get_worker_info() -> None:
    """In the main process (the only one detachviz runs) there is no worker: None."""
    return None
