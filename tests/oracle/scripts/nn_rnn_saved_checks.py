"""An LSTM's backward after an optimizer step modified its weights in place raises torch's
error; a second backward without retain_graph raises too; retain_graph=True works."""

import torch
import torch.nn as nn

torch.manual_seed(0)
for dtype in (torch.float32, torch.float64):
    lstm = nn.LSTM(2, 3).to(dtype)
    opt = torch.optim.SGD(lstm.parameters(), lr=0.1)
    out, _ = lstm(torch.randn(4, 1, 2, dtype=dtype))
    loss = out.sum()
    opt.zero_grad()
    loss.backward(retain_graph=True)
    loss.backward()
    print(dtype, f"{lstm.weight_hh_l0.grad.abs().sum().item():.4f}")
    try:
        loss.backward()
    except RuntimeError as e:
        print("again:", str(e).split(".")[0])
    out, _ = lstm(torch.randn(4, 1, 2, dtype=dtype))
    opt.step()
    try:
        out.sum().backward()
        print("no error")
    except RuntimeError as e:
        print("modified:", str(e).split(";")[0][:60])
