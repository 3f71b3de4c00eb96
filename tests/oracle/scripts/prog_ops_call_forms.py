"""The keyword and out= call forms PyTorch code uses: input=/other=/dim=/size=, out=
tensors that are resized and reused, and the error out= gives under autograd."""

import torch

a = torch.arange(6.0).reshape(2, 3)
b = torch.ones(3)
print(torch.add(input=a, other=b, alpha=2))
print(a.mul(other=b * 2).sum(dim=1, keepdim=True))
print(torch.sum(input=a, dim=0), torch.mean(a, dim=1))
print(torch.zeros(size=(2, 2)), torch.full(size=(2,), fill_value=7))
print(torch.max(input=a, dim=1).values, torch.softmax(input=b, dim=0))
print(a.view(size=(3, 2)).shape, a.transpose(dim0=0, dim1=1).shape, a.permute(dims=(1, 0)).shape)
buf = torch.empty(0)
r = torch.matmul(a, b, out=buf)
print(r is buf, buf, buf._version)
torch.exp(a, out=buf)
print(buf.shape)
acc = torch.zeros(2, 3)
for _ in range(3):
    torch.add(acc, a, out=acc)
print(acc, acc._version)
ints = torch.zeros(3, dtype=torch.long)
try:
    torch.add(torch.ones(3), 1, out=ints)
except RuntimeError as e:
    print("RuntimeError:", e)
w = torch.ones(3, requires_grad=True)
try:
    torch.mul(w, 2, out=torch.empty(3))
except RuntimeError as e:
    print("RuntimeError:", e)
with torch.no_grad():
    print(torch.mul(w, 2, out=torch.empty(3)))
print(torch.arange(start=1, end=4, out=torch.empty(0)))
print(torch.cat(tensors=[b, b], dim=0, out=torch.empty(6)))
print(torch.where(condition=a > 2, input=a, other=torch.zeros(1)))
