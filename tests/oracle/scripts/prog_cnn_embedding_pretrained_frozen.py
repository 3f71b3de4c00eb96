# Embedding.from_pretrained: frozen vectors (no gradient) vs fine-tuned ones.
import torch
import torch.nn as nn

vectors = torch.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
frozen = nn.Embedding.from_pretrained(vectors)
tuned = nn.Embedding.from_pretrained(vectors, freeze=False, padding_idx=0)
print(frozen, frozen.weight.requires_grad)
print(tuned, tuned.weight.requires_grad)
ids = torch.tensor([[1, 2], [0, 3]])
out = frozen(ids)
print(out, out.requires_grad)
loss = (tuned(ids) ** 2).sum()
loss.backward()
print(tuned.weight.grad)
print(type(tuned(ids).grad_fn).__name__)
limited = nn.Embedding.from_pretrained(vectors.clone(), max_norm=1.0)
print(limited(torch.tensor([1, 2])))
print(limited.weight)
