import torch
from torch.func import hessian, jacfwd, jacrev, jvp, vjp

x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64)
print(jacrev(torch.sin)(x))
print(jacfwd(torch.sin)(x))
print(hessian(lambda t: (t**3).sum())(x) + 0.0)
print(jacrev(lambda a, b: a * b, argnums=(0, 1))(torch.ones(2), torch.arange(2.0)))
out, fn = vjp(torch.exp, x)
print(out, fn(torch.ones(3, dtype=torch.float64)))
print(jvp(lambda t: t**2, (x,), (torch.ones(3, dtype=torch.float64),)))
