# F.pad on a small image in each mode, and the gradient each mode sends back.
import torch
import torch.nn.functional as F

img = torch.arange(1.0, 10.0).reshape(1, 1, 3, 3).requires_grad_()
for mode in ("constant", "reflect", "replicate"):
    out = F.pad(img, (1, 1, 2, 0), mode=mode)
    print(mode, type(out.grad_fn).__name__)
    print(out[0, 0])
    (grad,) = torch.autograd.grad(out.sum(), img)
    print(grad[0, 0])
print(F.pad(img, (1, 1), value=-1.0)[0, 0])
print(F.pad(img, (-1, 0, 0, -1))[0, 0])
seq = torch.tensor([[1.0, 2.0, 3.0, 4.0]])
print(F.pad(seq, (2, 3), mode="reflect"))
print(F.pad(seq, (2, 3), mode="replicate"))
try:
    F.pad(seq, (4, 0), mode="reflect")
except RuntimeError as e:
    print("RuntimeError:", e)
