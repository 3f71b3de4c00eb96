# Tensors in f-strings, %-formatting and str.format all use the repr.
import torch

t = torch.tensor([1.0, 2.5])
print(f"{t}")
print("%s" % t)  # noqa: UP031
print("value={}".format(t))  # noqa: UP032
print(f"{t!r}" == repr(t), str(t) == f"{t}")
print(torch.allclose(t, torch.tensor([1.0, 2.5000001])), torch.isclose(t, t + 1e-9))
