# Sentence classification with variable-length inputs: embed, pack (unsorted batch), GRU, h_n
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence

torch.manual_seed(0)
vocab, classes = 20, 3
sentences = [[3, 7, 1, 9], [4, 2], [5, 5, 8, 1, 2, 6], [7, 3, 3]]
labels = torch.tensor([0, 2, 1, 0])


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab, 8, padding_idx=0)
        self.gru = nn.GRU(8, 16, batch_first=True)
        self.out = nn.Linear(16, classes)

    def forward(self, tokens, lengths):
        packed = pack_padded_sequence(
            self.embed(tokens), lengths, batch_first=True, enforce_sorted=False
        )
        _, h_n = self.gru(packed)
        return self.out(h_n[-1])


model = Classifier()
tokens = pad_sequence([torch.tensor(s) for s in sentences], batch_first=True)
lengths = torch.tensor([len(s) for s in sentences])
print(tokens)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for step in range(4):
    logits = model(tokens, lengths)
    loss = nn.functional.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    acc = (logits.argmax(1) == labels).float().mean()
    print(f"step {step}: loss {loss.item():.4f} acc {acc:.2f}")
print(type(logits.grad_fn).__name__, logits.shape)
print(f"{model.gru.weight_hh_l0.grad.norm():.4f} {model.embed.weight.grad[0].abs().sum():.4f}")
