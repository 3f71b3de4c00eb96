# print(model) of a CNN mixing every layer kind, as tutorials show it.
import torch.nn as nn

model = nn.Sequential(
    nn.Conv2d(3, 32, kernel_size=3, stride=1, padding=1),
    nn.BatchNorm2d(32),
    nn.ReLU(),
    nn.Conv2d(32, 32, 3, padding="same", bias=False, padding_mode="reflect"),
    nn.MaxPool2d(kernel_size=2, stride=2),
    nn.Conv2d(32, 64, (3, 5), stride=(2, 1), dilation=2, groups=4),
    nn.GroupNorm(8, 64),
    nn.AvgPool2d(2),
    nn.ConvTranspose2d(64, 16, 4, stride=2, padding=1, output_padding=0),
    nn.AdaptiveAvgPool2d((4, 4)),
    nn.AdaptiveMaxPool2d(2),
    nn.Flatten(),
    nn.Linear(16 * 2 * 2, 10),
)
print(model)
print(nn.Embedding(1000, 64, padding_idx=0, max_norm=5.0))
print(nn.Conv1d(16, 33, 3, stride=2))
print(nn.MaxPool1d(3, stride=2))
print(nn.AvgPool1d(3, stride=2))
print(nn.BatchNorm1d(100, affine=False))
print(nn.BatchNorm2d(100, momentum=None, track_running_stats=False))
