# Truncated backprop through time with a GRU: the hidden state is detached between chunks
import torch
from torch import nn

torch.manual_seed(0)
seq = torch.sin(torch.linspace(0, 12, 61)).unsqueeze(-1)
gru = nn.GRU(1, 8, batch_first=True)
head = nn.Linear(8, 1)
opt = torch.optim.Adam(list(gru.parameters()) + list(head.parameters()), lr=0.01)
h = torch.zeros(1, 1, 8)
for epoch in range(2):
    h = torch.zeros(1, 1, 8)
    for start in range(0, 60, 15):
        x = seq[start : start + 15].unsqueeze(0)
        y = seq[start + 1 : start + 16].unsqueeze(0)
        out, h = gru(x, h)
        loss = nn.functional.mse_loss(head(out), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        h = h.detach()
        print(
            f"epoch {epoch} chunk {start // 15}: {loss.item():.4f} detached={not h.requires_grad}"
        )
