import torch
import torch.autograd.gradcheck
from torch.autograd.gradcheck import GradcheckError

print(callable(torch.autograd.gradcheck), GradcheckError.__name__)
print(issubclass(GradcheckError, RuntimeError))
x = torch.tensor([1.0, 2.0], dtype=torch.double, requires_grad=True)
try:
    torch.autograd.gradcheck(lambda t: (t * 2).detach().requires_grad_() * t, (x,))
except GradcheckError as e:
    print("caught", str(e).splitlines()[0])
