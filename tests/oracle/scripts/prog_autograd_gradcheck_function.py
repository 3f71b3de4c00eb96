# Writing a custom autograd.Function for a linear layer and verifying it with gradcheck,
# as the "Extending PyTorch" notes recommend.
import torch
from torch.autograd import Function, gradcheck


class LinearFunction(Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


torch.manual_seed(0)
inp = (
    torch.randn(6, 4, dtype=torch.double, requires_grad=True),
    torch.randn(5, 4, dtype=torch.double, requires_grad=True),
)
print("gradcheck (no bias):", gradcheck(LinearFunction.apply, inp, eps=1e-6, atol=1e-4))
bias = torch.randn(5, dtype=torch.double, requires_grad=True)
print("gradcheck (bias):", gradcheck(LinearFunction.apply, inp + (bias,)))
out = LinearFunction.apply(*inp, bias)
print(type(out.grad_fn).__name__, tuple(out.shape))
out.sum().backward()
print(f"{inp[0].grad.sum().item():.6f} {inp[1].grad.sum().item():.6f} {bias.grad.sum().item():.1f}")
