"""torch.utils.data: datasets, samplers, DataLoader and the collate functions, giving torch's
order for a given seed (RandomSampler and random_split draw as torch's do)."""

from __future__ import annotations

from detachviz.engine import namespace as _ns
from detachviz.utils.data.collate import default_collate, default_convert
from detachviz.utils.data.dataloader import DataLoader, get_worker_info
from detachviz.utils.data.dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from detachviz.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]

# a name torch has and detachviz lacks: "torch.utils.data.X is not supported by detachviz"
__getattr__ = _ns.module_getattr(globals(), "torch.utils.data", {}, methods=False)
