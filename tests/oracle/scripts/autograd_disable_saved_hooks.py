import torch

x = torch.ones(2, requires_grad=True)
with torch.autograd.graph.disable_saved_tensors_hooks("saved tensor hooks are off here"):
    try:
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            pass
    except RuntimeError as e:
        print("RuntimeError:", e)
with torch.autograd.graph.save_on_cpu():
    y = (x.sin() * x).sum()
y.backward()
print(x.grad)
with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
    z = (x * 3).sum()
z.backward()
print(x.grad)
