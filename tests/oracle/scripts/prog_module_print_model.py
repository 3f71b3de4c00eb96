# Printing models: nested containers, extra_repr of a custom layer, repr of losses.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Scale(nn.Module):
    def __init__(self, factor, learnable=False):
        super().__init__()
        self.factor = factor
        self.learnable = learnable

    def extra_repr(self):
        return f"factor={self.factor}, learnable={self.learnable}"

    def forward(self, x):
        return x * self.factor


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.1), Scale(0.5))
        self.proj = nn.Linear(8, 2, bias=False)

    def forward(self, x):
        return self.proj(self.layers(x))


model = nn.Sequential(Encoder(), nn.Tanh())
print(model)
print(Scale(2))
print(nn.Module())
print(nn.SmoothL1Loss(beta=0.5), nn.KLDivLoss(reduction="batchmean"), nn.CosineSimilarity(dim=0))
print(model[0].proj)
print(model(torch.randn(2, 4)).shape)
