# A 10,000-op chain (unrolled loop): backward and graph walks must not recurse.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x
for i in range(10000):
    y = y * 1.0 if i % 2 else y + 0.0001
loss = y.sum()
loss.backward()
print(x.grad, round(loss.item(), 3))
depth, fn = 0, loss.grad_fn
while fn is not None and fn.next_functions:
    fn = fn.next_functions[0][0]
    depth += 1
print(depth, fn.name() if fn is not None else None)
