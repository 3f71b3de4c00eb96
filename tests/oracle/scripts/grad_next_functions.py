# next_functions walks the backward graph; leaves appear as AccumulateGrad with .variable.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
c = a * b
d = c + a
e = d.sum()
stack = [(e.grad_fn, 0)]
while stack:
    fn, depth = stack.pop()
    if fn is None:
        print("  " * depth + "None")
        continue
    extra = ""
    if hasattr(fn, "variable"):
        extra = " " + str(fn.variable.tolist())
    print("  " * depth + fn.name() + extra)
    for nxt, _ in reversed(fn.next_functions):
        stack.append((nxt, depth + 1))
print(e.grad_fn.next_functions[0][1])
print(len(d.grad_fn.next_functions))
k = a * 2
print([(None if f is None else f.name(), i) for f, i in (k + 1).grad_fn.next_functions])
