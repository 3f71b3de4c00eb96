# Cross-attention between modalities of different widths: text queries (dim 8) attend over
# audio keys (dim 5) and values (dim 6) via MultiheadAttention(kdim=, vdim=)
import torch
from torch import nn

torch.manual_seed(8)
attn = nn.MultiheadAttention(embed_dim=8, num_heads=2, kdim=5, vdim=6, batch_first=True)
print([(n, tuple(p.shape)) for n, p in attn.named_parameters()])
print(attn.in_proj_weight, attn._qkv_same_embed_dim)
text = torch.randn(2, 3, 8)
audio_k = torch.randn(2, 7, 5)
audio_v = torch.randn(2, 7, 6)
pad = torch.zeros(2, 7, dtype=torch.bool)
pad[1, 5:] = True
out, weights = attn(text, audio_k, audio_v, key_padding_mask=pad)
print(out.shape, weights.shape, type(out.grad_fn).__name__)
row_sums = [f"{v:.4f}" for v in weights[1].sum(-1).tolist()]  # each row of weights sums to 1
print(row_sums, weights[1].sum(-1).grad_fn.name(), weights[1, :, 5:].abs().max())
target = torch.randn(2, 3, 8)
opt = torch.optim.SGD(attn.parameters(), lr=0.1)
for step in range(3):
    out, _ = attn(text, audio_k, audio_v, key_padding_mask=pad, need_weights=False)
    loss = nn.functional.mse_loss(out, target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: {loss.item():.4f} k_grad={attn.k_proj_weight.grad.norm():.4f}")
try:
    attn(text, torch.randn(2, 7, 4), audio_v)
except AssertionError as e:
    print(type(e).__name__ + ": " + str(e))
