# numpy() refuses tensors that require grad; detach().numpy() shares memory.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
try:
    x.numpy()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
n = x.detach().numpy()
n[0] = 100.0
print(x)
print(n.dtype, n.shape, type(n).__name__)
