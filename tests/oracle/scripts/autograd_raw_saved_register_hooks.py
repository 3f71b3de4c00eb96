import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x.pow(2)
print(type(y.grad_fn._raw_saved_self).__name__)
y.grad_fn._raw_saved_self.register_hooks(
    lambda t: (print("pack", t.tolist()), t * 10)[1],
    lambda t: (print("unpack", t.tolist()), t / 10)[1],
)
try:
    y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
except RuntimeError as e:
    print("RuntimeError:", e)
print(y.grad_fn._saved_self)
y.sum().backward()
print(x.grad)
