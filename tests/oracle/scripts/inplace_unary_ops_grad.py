# In-place unary ops on non-leaves (exp_, sigmoid_, tanh_, pow_): grad_fn names and grads.
import torch

for name in ["exp_", "sigmoid_", "tanh_", "neg_", "sqrt_"]:
    x = torch.tensor([0.25, 1.0], requires_grad=True)
    y = x * 1
    getattr(y, name)()
    y.sum().backward()
    print(name, type(y.grad_fn).__name__, y._version, [round(v, 5) for v in x.grad.tolist()])
x = torch.tensor([2.0], requires_grad=True)
y = x * 1
y.pow_(3)
y.backward()
print(type(y.grad_fn).__name__, x.grad)
