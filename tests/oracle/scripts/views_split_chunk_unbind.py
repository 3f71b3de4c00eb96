# split/chunk/unbind return views of the base that share its version counter.
import torch

base = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
parts = base.split(2)
chunks = base.chunk(3)
rows = base.view(2, 3).unbind(0)
print([p.tolist() for p in parts], [c.tolist() for c in chunks])
print(len(rows), rows[1])
parts[0].mul_(10)
print(base)
print(parts[1]._version, chunks[2]._version, base._version)
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
a, b = (x * 1).split(2)
(a * 2 + b * 3).sum().backward()
print(x.grad, type(a.grad_fn).__name__)
