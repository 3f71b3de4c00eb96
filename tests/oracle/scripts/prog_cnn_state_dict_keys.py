# The state_dict of a CNN with BatchNorm: parameters, running buffers, num_batches_tracked.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2)
        self.emb = nn.Embedding(5, 2)
        self.fc = nn.Linear(4 * 3 * 3, 2)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(torch.relu(self.bn(self.conv(x)))), 1))


torch.manual_seed(0)
net = Net()
for key, value in net.state_dict().items():
    print(f"{key:24s} {str(tuple(value.shape)):14s} {value.dtype}")
net(torch.randn(2, 1, 8, 8))
copy = Net()
result = copy.load_state_dict(net.state_dict())
print(result)
print("running_mean copied:", torch.equal(copy.bn.running_mean, net.bn.running_mean))
print("batches:", copy.bn.num_batches_tracked)
