# Under detect_anomaly the in-place error ends with a different hint (warnings go to stderr).
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.autograd.detect_anomaly():
    y = x.exp()
    y.add_(1)
    try:
        y.sum().backward()
    except RuntimeError as e:
        print(type(e).__name__ + ": " + str(e))
print(torch.is_anomaly_enabled())
