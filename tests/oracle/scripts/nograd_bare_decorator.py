# torch.no_grad used as a bare decorator (no parentheses) and inference on a model.
import torch


@torch.no_grad
def predict(w, x):
    return w * x


w = torch.tensor([2.0], requires_grad=True)
out = predict(w, torch.tensor([3.0]))
print(out, out.requires_grad)
