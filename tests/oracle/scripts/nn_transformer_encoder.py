"""nn.TransformerEncoderLayer / TransformerEncoder vs torch: repr, init order, train (dropout 0)
and eval outputs, norm_first, gelu, batch_first, masks, gradients, graph root."""

import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0)
print(layer)
print(layer.linear1.weight[0, :4], layer.self_attn.in_proj_weight[0, :4])
x = torch.randn(5, 3, 8, requires_grad=True)
y = layer(x)
print(
    type(y.grad_fn).__name__,
    tuple(y.shape),
    f"{abs(y.sum().item()):.4f} {y.pow(2).sum().item():.4f}",
)
y.pow(3).sum().backward()
print(
    f"{x.grad.abs().sum().item():.3f}",
    [f"{p.grad.abs().sum().item():.2f}" for p in layer.parameters()][:6],
)
for kw in [
    {"norm_first": True},
    {"activation": "gelu"},
    {"batch_first": True},
    {"activation": nn.GELU()},
]:
    torch.manual_seed(0)
    lay = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, **kw)
    out = lay(x)
    print(sorted(kw), type(out.grad_fn).__name__, f"{out.pow(2).sum().item():.4f}")
print(lay)
torch.manual_seed(0)
enc = nn.TransformerEncoder(
    nn.TransformerEncoderLayer(8, 2, 16, 0.0),
    num_layers=2,
    norm=nn.LayerNorm(8),
    enable_nested_tensor=False,
)
print(enc)
print(torch.equal(enc.layers[0].linear1.weight, enc.layers[1].linear1.weight))
pad = torch.tensor([[False] * 5, [False] * 4 + [True], [False] * 3 + [True] * 2])
mask = torch.arange(5).view(1, 5) > torch.arange(5).view(5, 1)
out = enc(x, mask=mask, src_key_padding_mask=pad)
print(f"{out.pow(2).sum().item():.4f}")
enc.eval()
with torch.no_grad():
    print(f"{enc(x).pow(2).sum().item():.4f}", f"{enc(x, mask=mask).pow(2).sum().item():.4f}")
    print(f"{enc(x, src_key_padding_mask=pad).pow(2).sum().item():.4f}")
print(f"{enc(x).pow(2).sum().item():.4f}")
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(8, 2, 16)
layer.train()
print(f"{layer(x).pow(2).sum().item():.4f}")
