# Minibatch SGD with torch.randperm shuffling each epoch and sigmoid gating.
import torch

torch.manual_seed(0)
x = torch.randn(120, 4)
y = (x[:, 0] - 0.5 * x[:, 2] > 0).float()
w = torch.randn(4, requires_grad=True)
for epoch in range(5):
    perm = torch.randperm(120)
    total = 0.0
    for start in range(0, 120, 32):
        idx = perm[start : start + 32]
        p = torch.sigmoid(x[idx] @ w)
        loss = torch.nn.functional.binary_cross_entropy(p, y[idx])
        loss.backward()
        with torch.no_grad():
            w -= 0.3 * w.grad
        w.grad = None
        total += loss.item() * len(idx)
    print(f"epoch {epoch} first idx {perm[:5].tolist()} mean loss {total / 120:.5f}")
print("w", [f"{v:.4f}" for v in w.tolist()])
