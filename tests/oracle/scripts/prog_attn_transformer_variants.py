# nn.Transformer configurations side by side: post-norm relu, pre-norm gelu, no bias,
# sequence-first and batch-first, with their parameter counts and output statistics
import torch
from torch import nn

configs = [
    dict(),
    dict(norm_first=True, activation="gelu"),
    dict(bias=False, batch_first=True),
    dict(activation=nn.functional.silu, layer_norm_eps=1e-6),
]
for cfg in configs:
    torch.manual_seed(7)
    model = nn.Transformer(
        d_model=8,
        nhead=2,
        num_encoder_layers=1,
        num_decoder_layers=2,
        dim_feedforward=16,
        dropout=0.0,
        **cfg,
    )
    bf = cfg.get("batch_first", False)
    src = torch.randn(2, 5, 8) if bf else torch.randn(5, 2, 8)
    tgt = torch.randn(2, 3, 8) if bf else torch.randn(3, 2, 8)
    out = model(src, tgt, tgt_mask=model.generate_square_subsequent_mask(3), tgt_is_causal=True)
    out.pow(3).sum().backward()
    n = sum(p.numel() for p in model.parameters())
    g = model.decoder.layers[1].multihead_attn.in_proj_weight.grad.norm()
    name = ",".join(f"{k}={getattr(v, '__name__', v)}" for k, v in cfg.items()) or "default"
    print(f"{name}: params={n} out={tuple(out.shape)} std={out.std():.4f} grad={g:.4f}")
    print(f"  first={out.flatten()[:3].tolist()[0]:.4f} max={out.max():.4f}")
print(model.decoder.layers[0].activation.__name__, model.encoder.norm)
try:
    nn.Transformer(8, 2, 1, 1, 16)(torch.randn(5, 2, 8), torch.randn(3, 3, 8))
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
try:
    nn.TransformerDecoderLayer(8, 2, activation="tanh")
except RuntimeError as e:
    print(type(e).__name__ + ": " + str(e))
