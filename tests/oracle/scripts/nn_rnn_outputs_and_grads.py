"""RNN/LSTM/GRU and cells vs torch: init, outputs, shapes, grad_fn names, gradients."""

import torch
import torch.nn as nn

torch.manual_seed(0)
for cls in (nn.RNN, nn.LSTM, nn.GRU):
    for kw in [
        dict(),
        dict(num_layers=2),
        dict(bidirectional=True),
        dict(batch_first=True),
        dict(bias=False),
    ]:
        for dt in (torch.float32, torch.float64):
            torch.manual_seed(0)
            m = cls(4, 3, **kw).to(dt)
            x = torch.randn(5, 2, 4, dtype=dt, requires_grad=True)
            out, h = m(x)
            hh = h if isinstance(h, torch.Tensor) else h[0]
            loss = out.pow(2).sum() + hh.sum() * 0.5
            if isinstance(h, tuple):
                loss = loss + h[1].pow(2).sum()
            loss.backward()
            gs = [p.grad.abs().sum().item() for p in m.parameters()]
            print(
                cls.__name__,
                kw,
                dt,
                type(out.grad_fn).__name__,
                type(hh.grad_fn).__name__,
                tuple(out.shape),
                tuple(hh.shape),
                f"{out.sum().item():.4f} {hh.sum().item():.4f} {x.grad.abs().sum().item():.4f}",
                " ".join(f"{g:.4f}" for g in gs),
            )
torch.manual_seed(0)
m = nn.LSTM(4, 8)
print(m.weight_ih_l0[0, :4].tolist(), m.bias_hh_l0[-3:].tolist())
for cls in (nn.RNNCell, nn.LSTMCell, nn.GRUCell):
    torch.manual_seed(0)
    c = cls(4, 3)
    x = torch.randn(2, 4, requires_grad=True)
    h = c(x)
    h1 = c(x, h)
    t = h1 if isinstance(h1, torch.Tensor) else h1[0] + h1[1]
    t.pow(2).sum().backward()
    print(
        cls.__name__,
        c,
        type(t.grad_fn).__name__,
        f"{t.sum().item():.5f} {x.grad.abs().sum().item():.5f}",
        [f"{p.grad.abs().sum().item():.5f}" for p in c.parameters()],
    )
    print(c(x[0]) if cls is not nn.LSTMCell else c(x[0])[1].shape)
