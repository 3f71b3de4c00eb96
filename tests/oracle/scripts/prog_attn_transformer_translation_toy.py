# A toy translation model with nn.Transformer: token embeddings plus sinusoidal positions,
# a causal target mask, padding masks, teacher forcing, then greedy decoding
import math

import torch
from torch import nn

torch.manual_seed(5)
PAD, BOS, V, D = 0, 1, 10, 16


class Translator(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_emb = nn.Embedding(V, D, padding_idx=PAD)
        self.tgt_emb = nn.Embedding(V, D, padding_idx=PAD)
        pos = torch.arange(12).unsqueeze(1)
        div = torch.exp(torch.arange(0, D, 2) * (-math.log(10000.0) / D))
        pe = torch.zeros(12, D)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe)
        self.core = nn.Transformer(D, 2, 1, 1, 32, dropout=0.0, batch_first=True)
        self.out = nn.Linear(D, V)

    def forward(self, src, tgt):
        s = self.src_emb(src) * math.sqrt(D) + self.pe[: src.shape[1]]
        t = self.tgt_emb(tgt) * math.sqrt(D) + self.pe[: tgt.shape[1]]
        mask = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1])
        h = self.core(
            s,
            t,
            tgt_mask=mask,
            src_key_padding_mask=src == PAD,
            memory_key_padding_mask=src == PAD,
            tgt_key_padding_mask=tgt == PAD,
        )
        return self.out(h)


src = torch.tensor([[3, 4, 5, 6], [7, 8, 9, PAD]])
tgt = torch.tensor([[6, 5, 4, 3], [9, 8, 7, PAD]])
model = Translator()
opt = torch.optim.Adam(model.parameters(), lr=0.01)
dec_in = torch.cat([torch.full((2, 1), BOS), tgt[:, :-1]], 1)
for step in range(5):
    logits = model(src, dec_in)
    loss = nn.functional.cross_entropy(logits.reshape(-1, V), tgt.reshape(-1), ignore_index=PAD)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
print(nn.Transformer.generate_square_subsequent_mask(4))
model.eval()
with torch.no_grad():
    ys = torch.full((2, 1), BOS)
    for _ in range(4):
        nxt = model(src, ys)[:, -1].argmax(-1, keepdim=True)
        ys = torch.cat([ys, nxt], 1)
print(ys)
