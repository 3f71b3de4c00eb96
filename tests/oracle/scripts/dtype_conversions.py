# .float() / .long() / .double() / .int() / .bool() / .to(dtype) conversions.
import torch

x = torch.tensor([1.7, -2.3, 0.0])
print(x.long())
print(x.int())
print(x.double())
print(x.bool())
print(x.to(torch.int64), x.to(dtype=torch.float64).dtype)
print(torch.tensor([1, 2]).float())
print(x.float() is x, x.to(torch.float32) is x, x.type(torch.float64).dtype)
print(x.type())
print(x.long().type(), x.double().type(), x.bool().type())
