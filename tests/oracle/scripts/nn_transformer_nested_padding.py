"""TransformerEncoder in eval without grad, batch_first, key padding mask: padded outputs are 0."""

import torch
import torch.nn as nn

torch.manual_seed(0)
enc = nn.TransformerEncoder(
    nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=True), num_layers=2
)
x = torch.randn(3, 5, 8)
pad = torch.tensor([[False] * 5, [False] * 4 + [True], [False] * 3 + [True] * 2])
enc.eval()
with torch.no_grad():
    out = enc(x, src_key_padding_mask=pad)
print(out[1, -1], out[2, -2:].sum())
out = enc(x, src_key_padding_mask=pad)
print(out[1, -1])
enc.train()
with torch.no_grad():
    print(enc(x, src_key_padding_mask=pad)[1, -1])
