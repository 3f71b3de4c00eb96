# Logistic regression with Adagrad and BCEWithLogitsLoss on a linearly separable set; the
# accumulated squared gradients grow, so the effective step shrinks.
import torch
import torch.nn as nn

torch.manual_seed(4)
X = torch.randn(100, 3)
w_true = torch.tensor([1.5, -2.0, 0.7])
y = (X @ w_true > 0).float().unsqueeze(1)
model = nn.Linear(3, 1)
opt = torch.optim.Adagrad(model.parameters(), lr=0.5)
loss_fn = nn.BCEWithLogitsLoss()
for epoch in range(40):
    opt.zero_grad()
    logits = model(X)
    loss = loss_fn(logits, y)
    loss.backward()
    opt.step()
    if epoch % 10 == 9:
        acc = ((logits > 0).float() == y).float().mean().item()
        print(f"epoch {epoch + 1}: loss={loss.item():.4f} acc={acc:.2f}")
print(f"{opt.state[model.weight]['sum'].sum().item():.3f}")
