import torch
import torch.nn.functional as F

x = torch.randn(1, 2, 6, 6, requires_grad=True)
w = torch.randn(4, 2, 3, 3, requires_grad=True)
b = torch.randn(4, requires_grad=True)
y = F.conv2d(x, w, b, stride=2, padding=1, dilation=1)
fn = y.grad_fn
print(type(fn).__name__, len(fn.next_functions))
print(fn._saved_stride, fn._saved_padding, fn._saved_dilation, fn._saved_groups)
print(fn._saved_transposed, fn._saved_output_padding, fn._saved_bias_sym_sizes_opt)
print(fn._saved_input is x, fn._saved_weight is w)
t = F.conv_transpose2d(x, torch.randn(2, 3, 3, 3), stride=2, output_padding=1)
print(tuple(t.shape), t.grad_fn._saved_transposed, t.grad_fn._saved_output_padding)
print(t.grad_fn.next_functions[1], t.grad_fn.next_functions[2])
p = F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False)
fn = p.grad_fn
print(type(fn).__name__, fn._saved_kernel_size, fn._saved_stride, fn._saved_padding)
print(fn._saved_ceil_mode, fn._saved_count_include_pad, fn._saved_divisor_override)
m = F.max_pool2d(x, 2, return_indices=True)
print(m[1].dtype, m[0].grad_fn._saved_result1.tolist() == m[1].tolist())
e = F.embedding(torch.tensor([3, 1]), torch.randn(5, 2, requires_grad=True))
print(e.grad_fn._saved_indices, e.grad_fn._saved_padding_idx, e.grad_fn._saved_weight_sym_argsize_0)
print(F.pad(x, (1, -1)).grad_fn._saved_pad)
g = F.group_norm(x, 2)
print(g.grad_fn._saved_N, g.grad_fn._saved_C, g.grad_fn._saved_HxW, g.grad_fn._saved_group)
print(tuple(g.grad_fn._saved_result1.shape), g.grad_fn._saved_eps)
