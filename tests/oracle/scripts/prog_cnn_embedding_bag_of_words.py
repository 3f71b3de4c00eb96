# A bag-of-embeddings classifier: padded token batches, mean over real tokens, a few SGD steps.
import torch
import torch.nn as nn

torch.manual_seed(0)
PAD = 0
vocab = {"<pad>": 0, "good": 1, "great": 2, "bad": 3, "awful": 4, "movie": 5, "plot": 6}
sentences = [["good", "movie"], ["great", "plot", "good"], ["bad", "movie"], ["awful", "plot"]]
labels = torch.tensor([1, 1, 0, 0])
length = max(len(s) for s in sentences)
tokens = torch.tensor([[vocab[w] for w in s] + [PAD] * (length - len(s)) for s in sentences])
print(tokens)
emb = nn.Embedding(len(vocab), 4, padding_idx=PAD)
clf = nn.Linear(4, 2)
params = list(emb.parameters()) + list(clf.parameters())
opt = torch.optim.SGD(params, lr=0.5)
mask = (tokens != PAD).float().unsqueeze(-1)
for epoch in range(5):
    vectors = emb(tokens)
    mean = (vectors * mask).sum(1) / mask.sum(1)
    loss = nn.functional.cross_entropy(clf(mean), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
print("pad row:", emb.weight[PAD].tolist())
print("pad grad:", emb.weight.grad[PAD].tolist())
print(type(vectors.grad_fn).__name__, vectors.grad_fn._saved_padding_idx)
