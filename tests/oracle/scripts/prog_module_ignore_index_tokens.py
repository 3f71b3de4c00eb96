# Token tagging with padding: CrossEntropyLoss(ignore_index=-100) skips the padded positions.
import torch
import torch.nn as nn

torch.manual_seed(0)
vocab, tags, seq = 10, 4, 6
emb = nn.Linear(vocab, 8)
tagger = nn.Linear(8, tags)
tokens = torch.randint(0, vocab, (3, seq))
one_hot = torch.eye(vocab)[tokens]
targets = torch.randint(0, tags, (3, seq))
lengths = [6, 4, 2]
for i, n in enumerate(lengths):
    targets[i, n:] = -100
criterion = nn.CrossEntropyLoss(ignore_index=-100)
params = list(emb.parameters()) + list(tagger.parameters())
opt = torch.optim.SGD(params, lr=0.5)
for step in range(5):
    logits = tagger(torch.tanh(emb(one_hot)))
    loss = criterion(logits.reshape(-1, tags), targets.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
per_token = nn.CrossEntropyLoss(reduction="none")(logits.reshape(-1, tags), targets.reshape(-1))
print("zeros at padding:", (per_token.reshape(3, seq)[2, 2:] == 0).all().item())
print(type(loss.grad_fn).__name__, int((targets != -100).sum()))
