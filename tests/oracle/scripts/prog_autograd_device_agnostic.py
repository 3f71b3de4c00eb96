# The device-agnostic boilerplate every tutorial starts with, then a short training loop.
import torch
import torch.nn as nn

device = "cuda" if torch.cuda.is_available() else "cpu"
if torch.backends.mps.is_available():
    device = "mps"
print(f"Using {device} device")
dev = torch.device(device)
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1)).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
X = torch.randn(16, 3).to(dev)
y = X.sum(dim=1, keepdim=True).to(device)
for epoch in range(5):
    pred = model(X)
    loss = nn.functional.mse_loss(pred, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
print(X.device, next(model.parameters()).device, X.is_cuda)
print(torch.cuda.device_count(), torch.accelerator.is_available())
try:
    X.cuda()
except AssertionError as e:
    print("AssertionError:", e)
