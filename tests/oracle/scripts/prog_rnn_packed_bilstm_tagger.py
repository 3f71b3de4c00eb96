# Part-of-speech style tagging: a bidirectional LSTM over packed sentences, a tag per token,
# padded positions ignored in the loss
import torch
from torch import nn
from torch.nn.utils.rnn import pack_sequence, pad_packed_sequence

torch.manual_seed(1)
n_words, n_tags, pad_tag = 15, 4, -100
sents = [torch.tensor([1, 4, 2, 9, 3]), torch.tensor([5, 6, 7]), torch.tensor([8, 2])]
tags = [torch.tensor([0, 1, 2, 1, 3]), torch.tensor([2, 2, 0]), torch.tensor([1, 3])]

emb = nn.Embedding(n_words, 6)
lstm = nn.LSTM(6, 5, bidirectional=True)
proj = nn.Linear(10, n_tags)
params = list(emb.parameters()) + list(lstm.parameters()) + list(proj.parameters())
opt = torch.optim.Adam(params, lr=0.05)

target = torch.full((5, 3), pad_tag)
for i, t in enumerate(tags):
    target[: len(t), i] = t

for epoch in range(3):
    packed = pack_sequence([emb(s) for s in sents])
    out, (h, c) = lstm(packed)
    padded, lengths = pad_packed_sequence(out)
    scores = proj(padded)
    flat = scores.view(-1, n_tags)
    loss = nn.functional.cross_entropy(flat, target.view(-1), ignore_index=pad_tag)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch}: loss={loss.item():.4f} lengths={lengths.tolist()}")

print(out.batch_sizes, type(out.data.grad_fn).__name__, padded.shape, h.shape)
with torch.no_grad():
    pred = proj(pad_packed_sequence(lstm(pack_sequence([emb(s) for s in sents]))[0])[0])
print(pred.argmax(-1).t())
print(f"{lstm.weight_ih_l0_reverse.grad.abs().sum():.4f}")
