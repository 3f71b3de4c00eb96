"""A toy GRU encoder-decoder that learns to reverse short digit sequences (teacher forcing)."""

import torch
import torch.nn as nn

torch.manual_seed(0)
V, H, L = 6, 16, 4
onehot = torch.eye(V)


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.GRU(V, H)
        self.decoder = nn.GRU(V, H)
        self.proj = nn.Linear(H, V)

    def forward(self, src, tgt_in):
        _, h = self.encoder(onehot[src])
        out, _ = self.decoder(onehot[tgt_in], h)
        return self.proj(out)


model = Seq2Seq()
opt = torch.optim.Adam(model.parameters(), lr=0.05)
src = torch.randint(1, V, (L, 8))
tgt = src[torch.arange(L - 1, -1, -1)]
start = torch.zeros(1, 8, dtype=torch.long)
tgt_in = torch.cat([start, tgt[:-1]], 0)
for step in range(25):
    logits = model(src, tgt_in)
    loss = nn.functional.cross_entropy(logits.reshape(-1, V), tgt.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f}")
pred = model(src, tgt_in).argmax(-1)
print("accuracy", round((pred == tgt).float().mean().item(), 4))
print(src[:, 0].tolist(), pred[:, 0].tolist())
