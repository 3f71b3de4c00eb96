# A causal dilated Conv1d stack (TCN style): left padding with F.pad, a few training steps.
import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalConv1d(nn.Module):
    def __init__(self, cin, cout, kernel_size, dilation):
        super().__init__()
        self.left = (kernel_size - 1) * dilation
        self.conv = nn.Conv1d(cin, cout, kernel_size, dilation=dilation)

    def forward(self, x):
        return self.conv(F.pad(x, (self.left, 0)))


torch.manual_seed(0)
tcn = nn.Sequential(
    CausalConv1d(1, 8, 2, 1), nn.ReLU(),
    CausalConv1d(8, 8, 2, 2), nn.ReLU(),
    CausalConv1d(8, 1, 2, 4),
)  # fmt: skip
t = torch.linspace(0, 6.28, 32)
series = torch.sin(t).reshape(1, 1, -1)
inputs, targets = series[..., :-1], series[..., 1:]
opt = torch.optim.Adam(tcn.parameters(), lr=0.01)
for step in range(6):
    opt.zero_grad()
    pred = tcn(inputs)
    loss = F.mse_loss(pred, targets)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
print("output length equals input length:", pred.shape[-1] == inputs.shape[-1])
x = torch.zeros(1, 1, 10, requires_grad=True)
tcn(x)[0, 0, 4].backward()
print("receptive field:", [i for i, v in enumerate(x.grad[0, 0].tolist()) if v != 0])
