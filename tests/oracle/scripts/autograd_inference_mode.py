import torch

w = torch.ones(3, requires_grad=True)
with torch.inference_mode():
    y = w * 2
    print(y.requires_grad, y.is_inference(), torch.is_inference_mode_enabled())
    y.add_(1)
print(y)
print(y.is_inference(), w.is_inference(), y.detach().is_inference())
for name, fn in [
    ("_version", lambda: y._version),
    ("add_", lambda: y.add_(1)),
    ("setitem", lambda: y.__setitem__(0, 5.0)),
    ("requires_grad_", lambda: y.requires_grad_()),
    ("backward", lambda: (y * w).sum().backward()),
]:
    try:
        fn()
    except RuntimeError as e:
        print(name, "RuntimeError:", e)
z = y.clone()
print(z.is_inference())


@torch.inference_mode()
def predict(x):
    return x * 3


print(predict(w).requires_grad, predict(w).is_inference())
with torch.no_grad():
    print((w * 2).is_inference())
