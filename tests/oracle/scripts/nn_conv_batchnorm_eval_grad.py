import torch
import torch.nn as nn

torch.manual_seed(0)
bn = nn.BatchNorm2d(2)
x = torch.randn(3, 2, 2, 2)
bn(x)
bn.eval()
inp = torch.randn(1, 2, 2, 2, requires_grad=True)
out = bn(inp)
out.sum().backward()
print(type(out.grad_fn).__name__, out.grad_fn._saved_training)
print(tuple(out.grad_fn._saved_result1.shape), tuple(out.grad_fn._saved_result2.shape))
print(inp.grad[0, :, 0, 0])
print(bn.weight.grad, bn.bias.grad)
print(bn.running_mean._version, bn.running_var._version)
bn.train()
bn(x)
print(bn.running_mean._version, bn.num_batches_tracked)
