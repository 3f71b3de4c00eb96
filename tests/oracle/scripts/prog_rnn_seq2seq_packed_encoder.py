# A tiny seq2seq: packed GRU encoder over source sentences of different lengths, its final
# hidden state starting a GRU decoder trained with teacher forcing
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence

torch.manual_seed(2)
SOS, V, H = 1, 12, 10
src = [torch.tensor([4, 5, 6, 7]), torch.tensor([8, 9]), torch.tensor([3, 10, 11])]
tgt = torch.tensor([[7, 6, 5], [9, 8, 2], [11, 10, 3]])  # (batch, steps)


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_emb = nn.Embedding(V, 8)
        self.tgt_emb = nn.Embedding(V, 8)
        self.encoder = nn.GRU(8, H)
        self.decoder = nn.GRU(8, H, batch_first=True)
        self.out = nn.Linear(H, V)

    def forward(self, src, tgt):
        lengths = torch.tensor([len(s) for s in src])
        padded = pad_sequence(src)
        packed = pack_padded_sequence(self.src_emb(padded), lengths, enforce_sorted=False)
        _, h = self.encoder(packed)
        dec_in = torch.cat([torch.full((tgt.shape[0], 1), SOS), tgt[:, :-1]], 1)
        out, _ = self.decoder(self.tgt_emb(dec_in), h)
        return self.out(out)


model = Seq2Seq()
opt = torch.optim.Adam(model.parameters(), lr=0.02)
for step in range(5):
    logits = model(src, tgt)
    loss = nn.functional.cross_entropy(logits.reshape(-1, V), tgt.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: {loss.item():.4f}")
grads = {n: f"{p.grad.norm():.4f}" for n, p in model.named_parameters() if "encoder" in n}
print(grads)
print(logits.argmax(-1))
