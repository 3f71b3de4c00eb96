# A custom Module with buffers: a running mean normaliser updated in training mode only.
import torch
import torch.nn as nn

torch.manual_seed(0)


class RunningNorm(nn.Module):
    def __init__(self, features, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("running_mean", torch.zeros(features))
        self.register_buffer("num_batches", torch.tensor(0))
        self.register_buffer("scratch", torch.zeros(features), persistent=False)

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.running_mean.mul_(1 - self.momentum).add_(self.momentum * x.mean(0))
                self.num_batches += 1
        return x - self.running_mean


norm = RunningNorm(3)
print([n for n, _ in norm.named_buffers()], list(norm.state_dict()))
print([n for n, _ in norm.named_parameters()])
for _ in range(5):
    out = norm(torch.randn(8, 3) + 2.0)
print(norm.running_mean, norm.num_batches)
norm.eval()
x = torch.randn(4, 3, requires_grad=True)
y = norm(x)
y.sum().backward()
print(norm.num_batches.item(), x.grad[0], type(y.grad_fn).__name__)
norm.double()
print(norm.running_mean.dtype, norm.num_batches.dtype)
