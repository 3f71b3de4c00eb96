"""A tiny Transformer encoder classifier: project features, encode, mean-pool, classify."""

import torch
import torch.nn as nn

torch.manual_seed(0)


class TinyTransformer(nn.Module):
    def __init__(self, d_in=3, d_model=8, n_cls=2):
        super().__init__()
        self.embed = nn.Linear(d_in, d_model)
        layer = nn.TransformerEncoderLayer(
            d_model, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, n_cls)

    def forward(self, x):
        h = self.encoder(self.embed(x))
        return self.head(h.mean(dim=1))


model = TinyTransformer()
x = torch.randn(16, 5, 3)
y = (x[:, :, 0].mean(1) > 0).long()
opt = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(10):
    logits = model(x)
    loss = loss_fn(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 3 == 0:
        acc = (logits.argmax(-1) == y).float().mean()
        print(f"epoch {epoch} loss {loss.item():.4f} acc {acc.item():.2f}")
model.eval()
with torch.no_grad():
    print(model(x[:3]).argmax(-1).tolist())
print(sum(p.numel() for p in model.parameters()))
