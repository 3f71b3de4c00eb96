# Module reprs of Sequential, activations and a custom Module with submodules.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


net = Net()
print(net)
print(nn.Sequential(nn.Linear(2, 3), nn.Sigmoid(), nn.Tanh()))
print([n for n, _ in net.named_parameters()])
print(net(torch.zeros(5, 4)).shape)
