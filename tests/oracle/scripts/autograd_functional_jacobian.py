import torch
from torch.autograd.functional import jacobian

torch.manual_seed(0)
W = torch.randn(3, 4)


def f(x):
    return torch.tanh(W @ x)


x = torch.randn(4)
J = jacobian(f, x)
print(J.shape, J.requires_grad)
print(J)
# two inputs, two outputs: a tuple of tuples [output][input]
a, b = torch.randn(2), torch.randn(2)
jac = jacobian(lambda a, b: (a * b, a.exp() + b), (a, b))
print(len(jac), len(jac[0]), [tuple(t.shape) for row in jac for t in row])
print(jac[1][0])
# an output that does not depend on an input gives zeros (strict=False)
print(jacobian(lambda a, b: a * 2, (a, b))[1])
try:
    jacobian(lambda a, b: a * 2, (a, b), strict=True)
except RuntimeError as e:
    print("RuntimeError:", e)
J = jacobian(f, x.clone().requires_grad_(), create_graph=True)
print(J.requires_grad)
