# Sanity check people write when they first use packing: a packed batch through a 2-layer
# bidirectional LSTM gives the same final states as running each sequence on its own
import torch
from torch import nn
from torch.nn.utils.rnn import pack_sequence, pad_packed_sequence

torch.manual_seed(12)
lstm = nn.LSTM(4, 3, num_layers=2, bidirectional=True)
seqs = [torch.randn(n, 4) for n in (3, 6, 1, 4)]
h0 = torch.randn(4, 4, 3)
c0 = torch.randn(4, 4, 3)
out, (h, c) = lstm(pack_sequence(seqs, enforce_sorted=False), (h0, c0))
padded, lengths = pad_packed_sequence(out)
print(padded.shape, lengths.tolist(), h.shape)
for i, s in enumerate(seqs):
    o_i, (h_i, c_i) = lstm(s.unsqueeze(1), (h0[:, i : i + 1], c0[:, i : i + 1]))
    same_out = torch.allclose(o_i[:, 0], padded[: len(s), i], atol=1e-6)
    same_h = torch.allclose(h_i[:, 0], h[:, i], atol=1e-6)
    rest = padded[len(s) :, i].abs().sum()
    print(f"sequence {i} (len {len(s)}): output {same_out} h_n {same_h} padding {rest:.1f}")
loss = h[-1].pow(2).sum() + padded.sum()
loss.backward()
print(f"{lstm.weight_hh_l1_reverse.grad.norm():.4f} {lstm.bias_ih_l0.grad.norm():.4f}")
print(type(h.grad_fn).__name__, type(padded.grad_fn).__name__)
