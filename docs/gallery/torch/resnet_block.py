# A ResNet-style step on real PyTorch, with an online linear probe (as self-supervised
# training evaluates its features): the probe reads the pooled features through detach(),
# so its loss trains the probe and never the network.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class BasicBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + x)  # the residual connection


class Net(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.block = BasicBlock(8)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, classes)

    def forward(self, x):
        features = self.pool(self.block(self.stem(x))).flatten(1)
        return self.fc(features), features


model = Net()
probe = nn.Linear(8, 10)
images = torch.randn(4, 3, 8, 8)
labels = torch.tensor([1, 0, 3, 9])

logits, features = model(images)
probe_logits = probe(features.detach())  # evaluate the features, don't train them
loss = F.cross_entropy(logits, labels) + F.cross_entropy(probe_logits, labels)
loss.backward()
print(f"loss {loss.item():.4f}")
