# Seed spelling: `import torch as T`, attached vs detached c = a**6 (no drawing).
import torch as T

a = T.ones(5, requires_grad=True)
b = a**4
c = a**6
i = (b + c).sum()
i.backward()
print(a.grad)
a.grad = None
b = a**4
c = a.detach() ** 6
i = (b + c).sum()
i.backward()
print(a.grad, type(i.grad_fn).__name__)
