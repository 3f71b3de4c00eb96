# inference_mode: results do not require grad and are inference tensors.
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.inference_mode():
    y = w * 2
print(y.requires_grad, y.is_inference(), w.is_inference())
print(torch.is_inference_mode_enabled())
try:
    (y * w).sum().backward()
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
