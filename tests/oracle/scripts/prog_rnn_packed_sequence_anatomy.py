# What a PackedSequence holds: data step by step, batch_sizes, the sort permutation; and the
# round trips back to padded tensors and to the original list
import torch
from torch.nn.utils.rnn import (
    PackedSequence,
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)

a = torch.tensor([1.0, 2.0, 3.0])
b = torch.tensor([4.0, 5.0, 6.0, 7.0])
c = torch.tensor([8.0])
packed = pack_sequence([a, b, c], enforce_sorted=False)
print(packed)
print(isinstance(packed, tuple), packed._fields)
data, batch_sizes, sorted_idx, unsorted_idx = packed
print(data, batch_sizes, sorted_idx, unsorted_idx)
padded, lengths = pad_packed_sequence(packed, batch_first=True, padding_value=-1.0)
print(padded, lengths)
print(pad_packed_sequence(packed, total_length=6)[0].shape)
print([t.tolist() for t in unpack_sequence(packed)])
print(pad_sequence([a, b, c], padding_side="left"))
left = pad_sequence([a, b, c], batch_first=True, padding_side="left")
print(left)
right = pad_sequence([a, b, c], batch_first=True)
print([t.tolist() for t in unpad_sequence(right, torch.tensor([3, 4, 1]), batch_first=True)])
sorted_pack = pack_padded_sequence(right[[1, 0, 2]], [4, 3, 1], batch_first=True)
print(sorted_pack.sorted_indices, sorted_pack.batch_sizes)
print(PackedSequence(sorted_pack.data, sorted_pack.batch_sizes).data.tolist())
print(packed.double().data.dtype, packed.to(torch.float64).data.dtype, packed.is_cuda)
for lengths in ([1, 3, 4], [4, 0, 1]):
    try:
        pack_padded_sequence(right, lengths, batch_first=True)
    except RuntimeError as e:
        print(type(e).__name__ + ": " + str(e))
