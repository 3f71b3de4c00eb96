import torch

x = torch.zeros(2)
try:
    x.to(requires_grad=True)
except TypeError as e:
    print("TypeError:", e)
print(x.to(torch.float64).dtype, x.to("cpu", torch.float64).dtype)
print(x.to(device="cpu", dtype=torch.float16).dtype)
print(x.to(torch.zeros(1, dtype=torch.int64)).dtype)
print(x.to("cpu") is x, x.to("cpu", copy=True) is x)
