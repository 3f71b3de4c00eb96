# Tutorial boilerplate: pick a device, move tensors and modules to it (CPU here).
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device, device.type, torch.cuda.is_available())
x = torch.ones(2, 3).to(device)
model = nn.Linear(3, 1).to(device)
print(x.device, next(model.parameters()).device, x.is_cuda)
y = torch.zeros(2, device=device)
print(y, y.to("cpu") is y, x.cpu().shape)
