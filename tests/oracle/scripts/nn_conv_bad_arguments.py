import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.randn(2, 3, 8, 8)
w = torch.randn(4, 3, 3, 3)
calls = [
    lambda: F.conv2d(torch.randn(2, 5, 8, 8), w),
    lambda: F.conv2d(torch.randn(2, 3, 2, 2), w),
    lambda: F.conv2d(x.double(), w),
    lambda: F.conv2d(torch.randn(3, 8), w),
    lambda: F.conv2d(x, w, stride=0),
    lambda: F.conv2d(x, w, padding=-1),
    lambda: F.conv2d(x, w, padding="full"),
    lambda: F.conv_transpose2d(x, torch.randn(3, 4, 3, 3), output_padding=1),
    lambda: F.max_pool2d(x, 3, padding=2),
    lambda: F.max_pool2d(x, 9),
    lambda: F.avg_pool2d(x, 9),
    lambda: F.batch_norm(x, torch.zeros(4), torch.ones(4)),
    lambda: F.batch_norm(torch.randn(1, 3), torch.zeros(3), torch.ones(3), training=True),
    lambda: F.group_norm(x, 2),
    lambda: F.embedding(torch.tensor([10]), torch.randn(10, 3)),
    lambda: F.embedding(torch.tensor([1.0]), torch.randn(10, 3)),
    lambda: F.pad(x, (1,)),
    lambda: F.pad(x, (1, 1), mode="reflect"),
    lambda: F.pad(x, (1, 1), mode="nearest"),
    lambda: nn.BatchNorm2d(3)(torch.randn(2, 3)),
    lambda: nn.BatchNorm1d(3)(torch.randn(2, 3, 4, 4)),
    lambda: nn.Embedding(5, 2, padding_idx=5),
]
for call in calls:
    try:
        call()
        print("no error")
    except Exception as e:
        print(type(e).__name__ + ": " + str(e).split("\n")[0])
