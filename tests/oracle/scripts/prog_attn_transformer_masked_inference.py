# Batched inference with padding: a batch-first Transformer in eval mode gives each sentence
# the output it gets alone, when the padded source positions are masked
import torch
from torch import nn

torch.manual_seed(13)
model = nn.Transformer(8, 2, 2, 1, 16, dropout=0.1, batch_first=True)
model.eval()
src = torch.randn(2, 5, 8)
tgt = torch.randn(2, 3, 8)
src_pad = torch.tensor([[False] * 5, [False, False, False, True, True]])
causal = model.generate_square_subsequent_mask(3)
with torch.no_grad():
    batch = model(
        src, tgt, tgt_mask=causal, src_key_padding_mask=src_pad, memory_key_padding_mask=src_pad
    )
    alone = model(src[1:, :3], tgt[1:], tgt_mask=causal)
print(batch.shape, batch.requires_grad)
print(torch.allclose(batch[1], alone[0], atol=1e-5))
print(f"{batch[0, 0, 0]:.4f} {batch[0, 1].max():.4f} {batch[1, -1].norm():.4f}")
memory = model.encoder(src, src_key_padding_mask=src_pad)
print(memory.shape, f"{memory[1, 3:].abs().sum():.4f}")
model.train()
out = model(src, tgt, tgt_mask=causal, src_key_padding_mask=src_pad)
print(type(out.grad_fn).__name__, out.requires_grad)
