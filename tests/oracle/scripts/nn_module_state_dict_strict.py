# state_dict keys/order with buffers (persistent=False left out), load_state_dict strict errors.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
        self.register_buffer("steps", torch.tensor(0))
        self.register_buffer("cache", torch.zeros(3), persistent=False)


net = Net()
sd = net.state_dict()
print(list(sd), type(sd).__name__)
print(sd._metadata)
print([n for n, _ in net.named_buffers()])
kept = net.state_dict(keep_vars=True)
print(sd["body.0.weight"].requires_grad, kept["body.0.weight"].requires_grad)
print(net.load_state_dict(sd))
res = net.load_state_dict({"body.0.weight": torch.zeros(3, 2), "junk": torch.ones(1)}, strict=False)
print(res)
print(res.missing_keys, res.unexpected_keys, net.body[0].weight.abs().sum().item())
for bad in ({"body.0.weight": torch.zeros(2, 2)}, {**sd, "extra.w": torch.ones(2)}):
    try:
        net.load_state_dict(bad)
    except RuntimeError as e:
        print("RuntimeError: " + str(e))
other = Net()
other.load_state_dict(net.state_dict(), assign=True)
print(other.body[0].weight.requires_grad, type(other.body[0].weight).__name__)
