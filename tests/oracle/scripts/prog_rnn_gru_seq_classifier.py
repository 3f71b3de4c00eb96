"""A GRU sequence classifier: is the running sum of a sequence positive at the end? SGD steps."""

import torch
import torch.nn as nn

torch.manual_seed(0)
N, T_, F_ = 32, 7, 3
x = torch.randn(N, T_, F_)
y = (x.sum(dim=(1, 2)) > 0).long()


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(F_, 12, batch_first=True)
        self.fc = nn.Linear(12, 2)

    def forward(self, seq):
        _, h = self.gru(seq)
        return self.fc(h[-1])


model = Classifier()
opt = torch.optim.SGD(model.parameters(), lr=0.5)
criterion = nn.CrossEntropyLoss()
for epoch in range(15):
    opt.zero_grad()
    logits = model(x)
    loss = criterion(logits, y)
    loss.backward()
    opt.step()
    if epoch % 3 == 0:
        acc = (logits.argmax(1) == y).float().mean().item()
        print(f"epoch {epoch} loss {loss.item():.4f} acc {acc:.3f}")
print(type(logits.grad_fn).__name__, tuple(logits.shape))
print([(n, tuple(p.shape)) for n, p in model.named_parameters()])
