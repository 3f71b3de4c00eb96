"""The grad_fn graphs of RNN/LSTM/GRU and their cells, walked breadth-first, match torch's."""

import torch
import torch.nn as nn


def walk(t, limit=60):
    seen, queue, names = set(), [t.grad_fn], []
    while queue and len(names) < limit:
        fn = queue.pop(0)
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        nxt = [f"{type(n).__name__ if n else None}:{i}" for n, i in fn.next_functions]
        names.append(type(fn).__name__ + "(" + ",".join(nxt) + ")")
        queue.extend(n for n, _ in fn.next_functions)
    return names


torch.manual_seed(0)
x = torch.randn(3, 2, 4, requires_grad=True)
for cls in (nn.RNN, nn.LSTM, nn.GRU):
    for kw in [{}, {"num_layers": 2}, {"bidirectional": True}, {"batch_first": True}]:
        for dt in (torch.float32, torch.float64):
            m = cls(4, 3, **kw).to(dt)
            out, h = m(x.to(dt))
            hh = h if isinstance(h, torch.Tensor) else h[1]
            print(cls.__name__, kw, dt)
            print("  out:", " ".join(walk(out, 25)))
            print("  h:", " ".join(walk(hh, 6)))
h0 = torch.zeros(1, 2, 3, requires_grad=True)
c0 = torch.zeros(1, 2, 3, requires_grad=True)
out, (h, c) = nn.LSTM(4, 3)(x, (h0, c0))
print("h0 given:", " ".join(walk(out, 8)))
out, h = nn.GRU(4, 3)(x[:, 0], h0[:, 0])
print("unbatched:", " ".join(walk(out, 8)), tuple(out.shape), tuple(h.shape))
for cls in (nn.RNNCell, nn.LSTMCell, nn.GRUCell):
    c = cls(4, 3)
    r = c(x[0])
    r = c(x[1], r)
    for t in r if isinstance(r, tuple) else (r,):
        print(cls.__name__, " ".join(walk(t, 40)))
