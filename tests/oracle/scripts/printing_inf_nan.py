# inf, -inf and nan inside float tensors.
import torch

print(torch.tensor([float("inf"), 1.0, float("-inf")]))
print(torch.tensor([float("nan"), 2.5]))
print(torch.tensor([1.0, 0.0]) / torch.tensor([0.0, 0.0]))
print(torch.tensor(float("nan")))
print(torch.tensor([float("inf")]).isinf(), torch.tensor([float("nan")]).isnan())
