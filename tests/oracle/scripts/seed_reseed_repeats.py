# Re-seeding repeats the same draw (compared, not printed).
import torch

torch.manual_seed(123)
a = torch.randn(4)
torch.manual_seed(123)
b = torch.randn(4)
print(torch.equal(a, b), bool((a == b).all()))
c = torch.randn(4)
print(torch.equal(a, c))
torch.manual_seed(5)
x = torch.rand(3)
torch.manual_seed(5)
print(torch.allclose(x, torch.rand(3)))
