# A DataLoader collate_fn that pads variable-length sequences; an LSTM over the packed batch,
# then mean-pooling over each sequence's real steps only
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
from torch.utils.data import DataLoader

torch.manual_seed(4)
data = [(torch.randn(n, 3), torch.tensor(float(n % 2))) for n in (5, 2, 4, 3, 6, 1)]


def collate(batch):
    seqs, ys = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    return pad_sequence(seqs, batch_first=True), lengths, torch.stack(ys)


loader = DataLoader(data, batch_size=3, collate_fn=collate)
lstm = nn.LSTM(3, 4, batch_first=True)
head = nn.Linear(4, 1)
opt = torch.optim.SGD(list(lstm.parameters()) + list(head.parameters()), lr=0.3)
for epoch in range(2):
    for x, lengths, y in loader:
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, _ = lstm(packed)
        padded, lens = pad_packed_sequence(out, batch_first=True)
        mask = (torch.arange(padded.shape[1])[None, :] < lens[:, None]).unsqueeze(-1)
        pooled = (padded * mask).sum(1) / lens[:, None]
        loss = nn.functional.binary_cross_entropy_with_logits(head(pooled).squeeze(1), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"epoch {epoch} x{tuple(x.shape)} lens={lens.tolist()} loss={loss.item():.4f}")
print(type(pooled.grad_fn).__name__, f"{lstm.bias_hh_l0.grad.abs().sum():.4f}")
