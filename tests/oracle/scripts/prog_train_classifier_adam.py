# A small MLP classifier on two Gaussian blobs with Adam, CrossEntropyLoss and accuracy.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
n = 150
a = torch.randn(n, 2) + torch.tensor([2.0, 2.0])
b = torch.randn(n, 2) + torch.tensor([-2.0, -1.0])
X = torch.cat([a, b])
y = torch.cat([torch.zeros(n, dtype=torch.long), torch.ones(n, dtype=torch.long)])


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 16)
        self.fc2 = nn.Linear(16, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


model = Net()
opt = torch.optim.Adam(model.parameters(), lr=0.01)
criterion = nn.CrossEntropyLoss()
loader = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True)
for epoch in range(5):
    running, correct = 0.0, 0
    for xb, yb in loader:
        opt.zero_grad()
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()
        opt.step()
        running += loss.item()
        correct += (out.argmax(dim=1) == yb).sum().item()
    print(f"[{epoch + 1}] loss: {running / len(loader):.3f} acc: {correct / len(X):.3f}")
with torch.no_grad():
    pred = model(torch.tensor([[2.0, 2.0], [-2.0, -1.0]])).argmax(1)
print(pred.tolist())
