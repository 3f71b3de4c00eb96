# clip_grad_value_ in a training loop where one outlier sample gives huge gradients.
import torch
import torch.nn as nn

X = torch.tensor([[0.1], [0.2], [0.3], [50.0]])
y = torch.tensor([[0.2], [0.4], [0.6], [100.0]])
for clip in [None, 0.5]:
    torch.manual_seed(0)
    model = nn.Linear(1, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.001)
    for _step in range(5):
        opt.zero_grad()
        loss = nn.functional.l1_loss(model(X), y)
        loss.backward()
        if clip is not None:
            nn.utils.clip_grad_value_(model.parameters(), clip_value=clip)
        opt.step()
    print(clip, f"{loss.item():.4f}", f"{model.weight.item():.4f}", model.weight.grad)
