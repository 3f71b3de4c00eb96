# A custom Module with a raw nn.Parameter, a submodule and a plain tensor attribute.
import torch
import torch.nn as nn


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.alpha = nn.Parameter(torch.tensor(2.0))
        self.inner = nn.Linear(1, 1, bias=False)
        self.const = torch.tensor(10.0)

    def forward(self, x):
        return self.alpha * self.inner(x) + self.const


m = Scale()
with torch.no_grad():
    m.inner.weight.fill_(3.0)
print([(n, tuple(p.shape)) for n, p in m.named_parameters()])
out = m(torch.tensor([[1.0]]))
out.sum().backward()
print(out, m.alpha.grad, m.inner.weight.grad)
print(m.train() is m, m.eval().training, m.training)
