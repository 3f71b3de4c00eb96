# Image-captioning style decoder: image features from a small CNN are the memory of a
# TransformerDecoder that predicts caption tokens (pre-norm layers, a final LayerNorm)
import torch
from torch import nn

torch.manual_seed(6)
V, D = 9, 12
cnn = nn.Sequential(nn.Conv2d(3, D, 3, stride=2, padding=1), nn.ReLU())
layer = nn.TransformerDecoderLayer(
    D, 3, dim_feedforward=24, dropout=0.0, norm_first=True, batch_first=True
)
decoder = nn.TransformerDecoder(layer, num_layers=2, norm=nn.LayerNorm(D))
embed = nn.Embedding(V, D)
head = nn.Linear(D, V)
params = [*cnn.parameters(), *decoder.parameters(), *embed.parameters(), *head.parameters()]
opt = torch.optim.AdamW(params, lr=0.01)

images = torch.randn(2, 3, 8, 8)
captions = torch.tensor([[1, 4, 5, 2], [1, 6, 7, 2]])
print(decoder.layers[0])
for step in range(4):
    memory = cnn(images).flatten(2).transpose(1, 2)  # (batch, 16 positions, D)
    inp, target = captions[:, :-1], captions[:, 1:]
    mask = nn.Transformer.generate_square_subsequent_mask(inp.shape[1])
    out = decoder(embed(inp), memory, tgt_mask=mask)
    loss = nn.functional.cross_entropy(head(out).transpose(1, 2), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: {loss.item():.4f} memory {tuple(memory.shape)}")
print(type(out.grad_fn).__name__, f"{cnn[0].weight.grad.norm():.4f}")
print(sum(p.numel() for p in decoder.parameters()))
