"""out= of functions returning several tensors (max, sort, topk, linalg svd/eigh/slogdet/qr):
a tuple or list of tensors, resized, returned as torch.return_types.<name>_out; torch's dtype
and autograd errors."""

import torch

torch.manual_seed(0)
x = torch.randn(3, 4)
s = x @ x.T + torch.eye(3)
v, i = torch.empty(0), torch.empty(0, dtype=torch.long)
r = torch.max(x, 1, keepdim=True, out=(v, i))
print(r, r.values is v, r[1] is i, v._version)
r2 = torch.sort(x, dim=0, descending=True, out=[v, i])
print(type(r2).__name__, v.shape)
u, sv, vh = torch.empty(0), torch.empty(0), torch.empty(0)
r3 = torch.linalg.svd(x, full_matrices=False, out=(u, sv, vh))
print(type(r3).__name__, u.shape, sv.shape, vh.shape)
print((u @ torch.diag(sv) @ vh - x).abs().max() < 1e-5)
xr = torch.randn(3, requires_grad=True)
with torch.no_grad():
    print(torch.topk(xr, 2, out=(torch.empty(0), torch.empty(0, dtype=torch.long))))
print(torch.linalg.slogdet(s, out=(torch.empty(0), torch.empty(0))))
print(torch.linalg.qr(x, mode="complete", out=(torch.empty(0), torch.empty(0))).Q.shape)
calls = [
    lambda: torch.linalg.eigh(s, out=(torch.empty(2), torch.empty(0, dtype=torch.double))),
    lambda: torch.max(xr, 0, out=(torch.empty(0), torch.empty(0, dtype=torch.long))),
    lambda: torch.topk(x, 2, out=(torch.empty(0),)),
    lambda: torch.topk(x, 2, out=(torch.empty(0), torch.empty(0))),
    lambda: torch.topk(x, 2, out=(torch.empty(0, dtype=torch.double), i)),
    lambda: torch.linalg.svd(x, out=(u, sv)),
]
for call in calls:
    try:
        call()
    except (TypeError, RuntimeError) as e:
        print(type(e).__name__ + ": " + str(e))
