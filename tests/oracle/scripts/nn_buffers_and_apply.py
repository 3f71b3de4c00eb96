# register_buffer: in state_dict, not in parameters; Module.apply for initialisation.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.register_buffer("running", torch.zeros(2))

    def forward(self, x):
        return self.fc(x) + self.running


def init(m):
    if isinstance(m, nn.Linear):
        nn.init.constant_(m.weight, 1.0)
        nn.init.zeros_(m.bias)


net = Net()
print(net.apply(init) is net)
print([n for n, _ in net.named_parameters()], [n for n, _ in net.named_buffers()])
print(list(net.state_dict().keys()), net.running.requires_grad)
print(net(torch.tensor([[1.0, 2.0]])))
