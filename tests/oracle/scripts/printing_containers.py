# Tensors inside lists, tuples and dicts print via their repr.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor(3)
print([a, b])
print((a * 2, None))
print({"w": torch.zeros(2, 2)})
print(a.shape, [a.shape, b.shape])
print("value:", torch.tensor([0.5]), "end")
