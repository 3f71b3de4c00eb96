"""torch.nn.utils.rnn: `PackedSequence` and the functions that make and undo it
(`pack_padded_sequence`, `pad_packed_sequence`, `pad_sequence`, `pack_sequence`,
`unpad_sequence`, `unpack_sequence`), built from the ops torch builds them from, so their
graphs show torch's nodes: PackPaddedSequenceBackward0 for packing, IndexSelectBackward0 for
the sort of `enforce_sorted=False`, chains of CopySlices for padding.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np

from detachviz import torch as T
from detachviz.engine import namespace as _ns
from detachviz.engine.ops import rnn as _rnn


def invert_permutation(permutation: Any) -> Any:
    """The permutation that undoes `permutation` (None stays None)."""
    if permutation is None:
        return None
    order = np.asarray(permutation.tolist(), dtype=np.int64)
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size, dtype=np.int64)
    return T.tensor(inverse)


class _PackedFields(NamedTuple):
    data: Any
    batch_sizes: Any
    sorted_indices: Any
    unsorted_indices: Any


class PackedSequence(_PackedFields):
    """A batch of variable-length sequences, step by step: `data` holds step t's entries of
    the `batch_sizes[t]` sequences still running; `sorted_indices` orders the batch by
    decreasing length (None when it was sorted already)."""

    def __new__(
        cls,
        data: Any,
        batch_sizes: Any = None,
        sorted_indices: Any = None,
        unsorted_indices: Any = None,
    ) -> PackedSequence:
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)
        data, batch_sizes = data[0], data[1]  # PackedSequence((data, batch_sizes))
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self) -> PackedSequence:
        return self

    def cuda(self, *args: Any, **kwargs: Any) -> PackedSequence:
        return type(self)(
            self.data.cuda(*args, **kwargs),
            self.batch_sizes,
            self.sorted_indices,
            self.unsorted_indices,
        )

    def pin_memory(self) -> PackedSequence:
        raise RuntimeError("PackedSequence.pin_memory() needs an accelerator; there is none")

    def _cast(self, dtype: Any) -> PackedSequence:
        return self.to(dtype=dtype)

    def double(self) -> PackedSequence:
        return self._cast(T.float64)

    def float(self) -> PackedSequence:
        return self._cast(T.float32)

    def half(self) -> PackedSequence:
        return self._cast(T.float16)

    def long(self) -> PackedSequence:
        return self._cast(T.int64)

    def int(self) -> PackedSequence:
        return self._cast(T.int32)

    def short(self) -> PackedSequence:
        return self._cast(T.int16)

    def char(self) -> PackedSequence:
        return self._cast(T.int8)

    def byte(self) -> PackedSequence:
        return self._cast(T.uint8)

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False


def _lengths_tensor(lengths: Any) -> Any:
    if isinstance(lengths, T.Tensor):
        return lengths.to(dtype=T.int64)
    return T.as_tensor(lengths, dtype=T.int64)


def pack_padded_sequence(
    input: Any, lengths: Any, batch_first: bool = False, enforce_sorted: bool = True
) -> PackedSequence:
    """A padded batch (T, B, *) (or (B, T, *)) packed; `lengths` decreasing unless
    enforce_sorted=False (then the batch is sorted first, as torch sorts it)."""
    lengths = _lengths_tensor(lengths)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = T.sort(lengths, descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _rnn.pack_padded_sequence(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Any, Any]:
    """(padded batch, lengths) of a PackedSequence, in the batch's original order: torch's
    _pad_packed_sequence (one copy into a slice of the padded output per run of steps with
    the same batch size), then the index_select that unsorts it."""
    data = sequence.data
    batch_sizes = [int(b) for b in sequence.batch_sizes.tolist()]
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}"
            )
        steps = total_length
    max_batch = batch_sizes[0]
    features = tuple(data.shape[1:])
    output = T.full((steps, max_batch, *features), padding_value, dtype=data.dtype)
    lengths = [0] * max_batch
    offset, prev_batch, prev_t = 0, max_batch, 0
    real_steps = len(batch_sizes)
    for t in range(real_steps + 1):
        batch = batch_sizes[t] if t != real_steps else 0
        if batch != prev_batch:
            rows = prev_batch * (t - prev_t)
            piece = data.narrow(0, offset, rows).view(t - prev_t, prev_batch, *features)
            output.narrow(0, prev_t, t - prev_t).narrow(1, 0, prev_batch).copy_(piece)
            offset += rows
            prev_t = t
        for b in range(batch, prev_batch):
            lengths[b] = t
        prev_batch = batch
    if batch_first:
        output = output.transpose(0, 1)
    lengths_t = T.tensor(lengths, dtype=T.int64)
    if sequence.unsorted_indices is not None:
        output = output.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths_t = lengths_t[sequence.unsorted_indices]
    return output, lengths_t


def pad_sequence(
    sequences: Any,
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Any:
    """Sequences of shape (L_i, *) as one (T, B, *) batch (or (B, T, *)), padded with
    `padding_value`: each copied into a slice of the filled output (a CopySlices each)."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(
            "pad_sequence: Expected iterable for input sequences, but got arg of type: "
            f"{type(sequences)}"
        )
    seqs = tuple(sequences)
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    longest = max(int(s.shape[0]) for s in seqs)
    features = tuple(seqs[0].shape[1:])
    for s in seqs[1:]:
        for d, (a, b) in enumerate(zip(features, s.shape[1:])):
            if a != b:
                raise RuntimeError(
                    f"The size of tensor a ({a}) must match the size of tensor b ({b}) at "
                    f"non-singleton dimension {d}"
                )
    shape = (len(seqs), longest, *features) if batch_first else (longest, len(seqs), *features)
    out = T.full(shape, padding_value, dtype=seqs[0].dtype)
    left = padding_side == "left"
    for i, s in enumerate(seqs):
        n = int(s.shape[0])
        start = longest - n if left else 0
        row = out[i] if batch_first else out[:, i]
        row.narrow(0, start, n).copy_(s)
    return out


def pack_sequence(sequences: Any, enforce_sorted: bool = True) -> PackedSequence:
    """pad_sequence, then pack_padded_sequence with the sequences' lengths."""
    lengths = T.as_tensor([int(v.shape[0]) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences: Any, lengths: Any, batch_first: bool = False) -> list[Any]:
    """The sequences of a padded batch, each cut to its length (a boolean-mask index)."""
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    idx = T.arange(padded_sequences.shape[1])
    if len(padded_sequences) != len(lengths):
        relation = "shorter" if len(lengths) < len(padded_sequences) else "longer"
        raise ValueError(f"zip() argument 2 is {relation} than argument 1")
    return [seq[idx < length] for seq, length in zip(padded_sequences, lengths)]


def unpack_sequence(packed_sequences: PackedSequence) -> list[Any]:
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


# a name torch has and detachviz lacks: "torch.nn.utils.rnn.X is not supported by detachviz"
__getattr__ = _ns.module_getattr(globals(), "torch.nn.utils.rnn", {}, methods=False)
