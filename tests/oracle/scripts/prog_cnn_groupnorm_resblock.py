# A residual block with GroupNorm (as in small-batch training), a few steps of Adam.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ResBlock(nn.Module):
    def __init__(self, channels, groups=4):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.gn1 = nn.GroupNorm(groups, channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.gn2 = nn.GroupNorm(groups, channels)

    def forward(self, x):
        out = F.relu(self.gn1(self.conv1(x)))
        out = self.gn2(self.conv2(out))
        return F.relu(out + x)


torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), ResBlock(8), ResBlock(8), nn.Conv2d(8, 1, 1))
print(net[1])
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
x = torch.randn(2, 1, 8, 8)
target = 0.5 * x + 0.1
for step in range(4):
    opt.zero_grad()
    loss = F.mse_loss(net(x), target)
    loss.backward()
    opt.step()
    print(f"step {step} mse {loss.item():.4f}")
gn = net[1].gn1
print(type(gn(torch.randn(1, 8, 2, 2, requires_grad=True)).grad_fn).__name__)
print("gn weight grad:", [round(v, 4) for v in gn.weight.grad.tolist()[:4]])
