"""An LSTM's state_dict: torch's parameter names and shapes, saved and loaded into a twin."""

import torch
import torch.nn as nn

torch.manual_seed(0)
lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
sd = lstm.state_dict()
for k, v in sd.items():
    print(k, tuple(v.shape))
torch.manual_seed(1)
twin = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
x = torch.randn(2, 1, 3)
print(torch.equal(twin(x)[0], lstm(x)[0]))
print(twin.load_state_dict(sd))
print(torch.equal(twin(x)[0], lstm(x)[0]))
print(f"{lstm.weight_hh_l1_reverse.sum().item():.5f}")
print(lstm.all_weights[0][0].shape, len(lstm.all_weights))
