# An MNIST-shaped toy: random 8x8 "images", Flatten, a hidden layer, Adadelta (lr=1.0, as
# the PyTorch MNIST example uses) and StepLR(gamma=0.7) per epoch.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(1)
images = torch.rand(60, 1, 8, 8)
labels = (images.mean(dim=(1, 2, 3)) > 0.5).long() + (images[:, 0, 0, 0] > 0.5).long()
loader = DataLoader(TensorDataset(images, labels), batch_size=10, shuffle=True)
model = nn.Sequential(
    nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 3), nn.LogSoftmax(dim=1)
)
optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
for epoch in range(1, 4):
    model.train()
    for batch_idx, (data, target) in enumerate(loader):
        optimizer.zero_grad()
        output = model(data)
        loss = nn.functional.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % 3 == 0:
            done = batch_idx * len(data)
            print(f"Train Epoch: {epoch} [{done}/{len(loader.dataset)}]\tLoss: {loss.item():.4f}")
    scheduler.step()
