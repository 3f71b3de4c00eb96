"""default_collate (a list of samples -> one batch) and default_convert (one sample, no
batching), following torch's rules: tensors stacked along a new dim 0, python floats to a
float64 tensor, ints to int64, numpy arrays and scalars through as_tensor, strings kept as a
list, mappings and namedtuples per field, and a tuple or list of fields transposed into a
*list* of batches (a TensorDataset's `(x, y)` samples give `[xs, ys]`, as in torch)."""

from __future__ import annotations

import collections.abc
import copy
from typing import Any

import numpy as np

from detachviz import torch as T

_ERROR = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _type_name(x: Any) -> str:
    return f"<class '{type(x).__module__}.{type(x).__qualname__}'>".replace("builtins.", "")


def default_collate(batch: list[Any]) -> Any:
    elem = batch[0]
    if isinstance(elem, T.Tensor):
        return T.stack(batch, 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "SaUO":
            raise TypeError(_ERROR.format(elem.dtype))
        return default_collate([T.as_tensor(b) for b in batch])
    if isinstance(elem, np.generic):
        return T.as_tensor(np.array(batch))
    if isinstance(elem, float):
        return T.tensor(batch, dtype=T.float64)
    if isinstance(elem, int):
        return T.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        fields = {key: default_collate([d[key] for d in batch]) for key in elem}
        if isinstance(elem, collections.abc.MutableMapping):
            clone = copy.copy(elem)
            clone.update(fields)
            return clone
        return fields
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = [list(s) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return [default_collate(s) for s in transposed]
        if isinstance(elem, collections.abc.MutableSequence):
            seq = copy.copy(elem)
            for i, s in enumerate(transposed):
                seq[i] = default_collate(s)
            return seq
        return [default_collate(s) for s in transposed]
    raise TypeError(_ERROR.format(_type_name(elem)))


def default_convert(data: Any) -> Any:
    if isinstance(data, T.Tensor):
        return data
    if isinstance(data, np.ndarray):
        return data if data.dtype.kind in "SaUO" else T.as_tensor(data)
    if isinstance(data, np.generic):
        return T.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return (
            type(data)({k: default_convert(v) for k, v in data.items()})
            if isinstance(data, dict)
            else {k: default_convert(v) for k, v in data.items()}
        )
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return [default_convert(d) for d in data]
    return data
