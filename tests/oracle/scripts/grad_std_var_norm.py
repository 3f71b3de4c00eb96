# std/var (unbiased by default) and norm, with gradients (rounded).
import torch

x = torch.tensor([1.0, 2.0, 4.0, 7.0], requires_grad=True)
print(x.std(), x.var(), x.norm())
print(x.var(unbiased=False), x.std(dim=0, keepdim=True))
x.std().backward()
print([round(v, 5) for v in x.grad.tolist()])
x.grad = None
x.norm().backward()
print([round(v, 5) for v in x.grad.tolist()], type(x.norm().grad_fn).__name__)
