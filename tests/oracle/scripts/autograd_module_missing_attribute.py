import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)


net = Net()
print(hasattr(net, "fc"), hasattr(net, "missing_attr"))
try:
    net.missing_attr
except AttributeError as e:
    print("AttributeError:", e)
