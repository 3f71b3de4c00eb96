# A tensor and a numpy array in one expression: numpy computes when the array is on the right
# (float64 result, no history), it is a TypeError on the left (except / and ==), and numpy
# scalars join like python numbers (the tensor's dtype, grad kept).
import numpy as np
import torch

t = torch.arange(3.0)
a = np.array([1.0, 2.0, 3.0])
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)


def show(label, f):
    try:
        r = f()
    except (TypeError, RuntimeError) as e:
        print(label, type(e).__name__ + ":", str(e).splitlines()[0])
        return
    print(label, type(r).__name__, r.dtype if hasattr(r, "dtype") else "", r)


show("t * a", lambda: t * a)
show("a * t", lambda: a * t)
show("t - a", lambda: t - a)
show("a / t", lambda: a / t)
show("t @ a", lambda: t @ a)
show("t == a", lambda: t == a)
show("t != a", lambda: t != a)
show("t < a", lambda: t < a)
show("w * a", lambda: w * a)
show("t * 0-d", lambda: t * np.array(2.0))
show("w * f64", lambda: w * np.float64(2.0))
show("i64 * t", lambda: np.int64(2) * torch.arange(3))
show("np.exp", lambda: np.exp(t))
try:
    t.mul(a)
except TypeError:
    print("t.mul(a) TypeError")  # the messages differ: torch's names the argument's position
u = t
u += a
print("+=", u, u is t, t)
(w * np.float64(2.0)).sum().backward()
print(w.grad)
