# AccumulateGrad nodes expose the leaf as .variable; a leaf has no grad_fn of its own.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
c = a * b
fn = c.grad_fn
print(fn.name(), len(fn.next_functions))
acc_a, idx = fn.next_functions[0]
print(type(acc_a).__name__, idx, acc_a.variable is a)
print(fn.next_functions[1][0].variable is b)
print(a.grad_fn, callable(fn))
d = a * 3
print([type(f).__name__ if f is not None else None for f, _ in d.grad_fn.next_functions])
