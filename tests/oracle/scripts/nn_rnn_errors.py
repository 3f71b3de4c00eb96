"""Bad arguments to recurrent layers raise torch's errors."""

import torch
import torch.nn as nn


def show(fn):
    try:
        fn()
        print("no error")
    except (RuntimeError, ValueError, TypeError) as e:
        print(type(e).__name__ + ": " + str(e))


gru = nn.GRU(3, 4)
lstm = nn.LSTM(3, 4, num_layers=2)
show(lambda: gru(torch.zeros(1, 1, 1, 3)))
show(lambda: gru(torch.zeros(2, 1, 5)))
show(lambda: gru(torch.zeros(2, 2, 3), torch.zeros(1, 3, 4)))
show(lambda: lstm(torch.zeros(2, 2, 3), (torch.zeros(1, 2, 4), torch.zeros(2, 2, 4))))
show(lambda: gru(torch.zeros(2, 3), torch.zeros(1, 2, 4)))
show(lambda: nn.RNN(3, 4, nonlinearity="gelu"))
show(lambda: nn.GRU(3, 4, proj_size=2))
show(lambda: nn.LSTM(3, 0))
show(lambda: nn.LSTM(3, 4, num_layers=0))
show(lambda: nn.LSTM(3, 4, dropout=1.5))
show(lambda: nn.LSTMCell(3, 4)(torch.zeros(2, 2, 3)))
show(lambda: nn.GRUCell(3, 4)(torch.zeros(2, 5)))
show(lambda: nn.RNNCell(3, 4, nonlinearity="gelu")(torch.zeros(2, 3)))
show(lambda: nn.LayerNorm(4)(torch.zeros(2, 3)))
show(lambda: nn.MultiheadAttention(6, 4))
