"""A padded-sequence language-model loss: log_softmax, gather the target log-probs, mask
the padding, average over real tokens."""

import torch
import torch.nn as nn

torch.manual_seed(3)
vocab, hidden, pad = 7, 8, 0
lengths = torch.tensor([5, 3, 4])
T = int(lengths.max())
tokens = torch.randint(1, vocab, (3, T))
mask = torch.arange(T).unsqueeze(0) < lengths.unsqueeze(1)
tokens = tokens.masked_fill(~mask, pad)
print("tokens:", tokens.tolist())

emb = nn.Parameter(torch.randn(vocab, hidden))
proj = nn.Linear(hidden, vocab)
opt = torch.optim.Adam([emb, *proj.parameters()], lr=0.05)
inputs, targets, tmask = tokens[:, :-1], tokens[:, 1:], mask[:, 1:]
for step in range(4):
    opt.zero_grad()
    logp = torch.log_softmax(
        proj(emb.index_select(0, inputs.reshape(-1)).view(*inputs.shape, hidden)), dim=-1
    )
    tok_logp = logp.gather(2, targets.unsqueeze(-1)).squeeze(-1)
    loss = -(tok_logp * tmask).sum() / tmask.sum()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
print(type(tok_logp.grad_fn).__name__, tok_logp.grad_fn.next_functions[0][0].name())
picked = logp.masked_select(tmask.unsqueeze(-1).expand_as(logp))
print("masked_select count:", picked.numel(), type(picked.grad_fn).__name__)
print("grad rows touched:", int((emb.grad.abs().sum(1) > 0).sum()))
