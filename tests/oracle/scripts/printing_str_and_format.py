# str(), item(), tolist() and f-string formatting of tensors.
import torch

t = torch.tensor([1.5, 2.0])
print(str(t) == repr(t))
print(t.tolist(), t[0].item(), type(t[0].item()).__name__)
print(torch.tensor(3).item(), type(torch.tensor(3).item()).__name__)
print(f"{torch.tensor(2.5).item():.3f}")
print(f"{torch.tensor(2.5):.2f}")
print(torch.tensor([[1, 2], [3, 4]]).tolist())
print(float(torch.tensor(0.25)), int(torch.tensor(7.9)), bool(torch.tensor(1)))
