# Metric learning with TripletMarginLoss: anchors, positives from the same class, negatives.
import torch
import torch.nn as nn

torch.manual_seed(0)
centers = torch.randn(3, 5) * 2
labels = torch.randint(0, 3, (30,))
points = centers[labels] + 0.5 * torch.randn(30, 5)
net = nn.Sequential(nn.Linear(5, 12), nn.ReLU(), nn.Linear(12, 4))
criterion = nn.TripletMarginLoss(margin=3.0, p=2)
opt = torch.optim.Adam(net.parameters(), lr=0.01)
anchor_idx = torch.arange(0, 30, 3)
pos_idx, neg_idx = [], []
label_list = labels.tolist()
for i in anchor_idx.tolist():
    same = [j for j, c in enumerate(label_list) if c == label_list[i]]
    diff = [j for j, c in enumerate(label_list) if c != label_list[i]]
    pos_idx.append([j for j in same if j != i][0] if len(same) > 1 else i)
    neg_idx.append(diff[0])
pos_idx, neg_idx = torch.tensor(pos_idx), torch.tensor(neg_idx)
for epoch in range(6):
    emb = net(points)
    loss = criterion(emb[anchor_idx], emb[pos_idx], emb[neg_idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 2 == 0:
        print(f"epoch {epoch} loss {loss.item():.4f}")
print(type(loss.grad_fn).__name__)
swap = nn.TripletMarginLoss(margin=3.0, swap=True)(emb[anchor_idx], emb[pos_idx], emb[neg_idx])
print(f"swap loss {swap.item():.4f}")
