# reshape of a non-contiguous tensor copies (no _base); of a contiguous one it views.
import torch

a = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
r1 = a.reshape(6)
r2 = a.t().reshape(6)
print(r1._base is a, r2._base is None)
print(r2)
try:
    a.t().view(6)
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
print(a.t().contiguous().view(6))
