"""The language-modelling tutorial's shape: a TransformerEncoder with the causal mask from
nn.Transformer.generate_square_subsequent_mask, sinusoid-free learned positions, a few steps."""

import torch
import torch.nn as nn

torch.manual_seed(0)
V, D, T_ = 12, 8, 6


class TransformerLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(V, D, bias=False)
        self.pos = nn.Parameter(torch.randn(T_, 1, D) * 0.1)
        layer = nn.TransformerEncoderLayer(D, 2, dim_feedforward=16, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.decoder = nn.Linear(D, V)

    def forward(self, src, mask):
        x = self.embed(torch.eye(V)[src]) + self.pos[: src.shape[0]]
        return self.decoder(self.encoder(x, mask))


mask = nn.Transformer.generate_square_subsequent_mask(T_)
print(mask)
model = TransformerLM()
data = torch.randint(0, V, (T_ + 1, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for step in range(6):
    out = model(data[:-1], mask)
    loss = nn.functional.cross_entropy(out.view(-1, V), data[1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f} ppl {loss.exp().item():.3f}")
