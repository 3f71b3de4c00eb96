# item()/tolist() of float32 values widen to Python floats (0.1 is not 0.1).
import torch

t = torch.tensor([0.1, 1.0 / 3.0])
print(t[0].item(), t.tolist())
print(torch.tensor(0.1, dtype=torch.float64).item())
print(torch.tensor(1e-45).item() > 0, torch.tensor(2.5).item())
print(repr(torch.tensor(7).item()), torch.tensor(True).item())
print(torch.tensor([1, 2]).tolist(), torch.tensor([[True]]).tolist())
