# Walk the autograd graph of a small CNN's loss and print each node name once.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
net = nn.Sequential(
    nn.Conv2d(1, 2, 3, padding=1), nn.BatchNorm2d(2), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(2, 2, 3), nn.AvgPool2d(1), nn.Flatten(), nn.Linear(2, 2),
)  # fmt: skip
emb = nn.Embedding(4, 2)
x = torch.randn(2, 1, 6, 6)
loss = F.cross_entropy(net(x) + emb(torch.tensor([1, 3])), torch.tensor([0, 1]))
seen, nodes, stack = set(), [], [loss.grad_fn]
while stack:
    fn = stack.pop()
    if fn is None or fn in seen:
        continue
    seen.add(fn)
    nodes.append(fn)
    stack.extend(n for n, _ in reversed(fn.next_functions))
for fn in nodes:
    print(fn.name())
bn_node = [f for f in nodes if f.name() == "NativeBatchNormBackward0"][0]
print(bn_node._saved_eps, bn_node._saved_training, tuple(bn_node._saved_result1.shape))
conv_node = [f for f in nodes if f.name() == "ConvolutionBackward0"][0]
print(conv_node._saved_stride, conv_node._saved_padding, conv_node._saved_groups)
