# Writing in place into an expanded (overlapping) tensor is refused.
import torch

a = torch.tensor([1.0, 2.0]).expand(3, 2)
try:
    a.add_(1)
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
b = a.clone()
b.add_(1)
print(b)
print(b.is_contiguous(), a.is_contiguous())
