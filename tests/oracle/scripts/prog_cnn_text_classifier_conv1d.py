# A 1-D convolutional text classifier: Embedding, Conv1d filters, max over time, Linear.
import torch
import torch.nn as nn
import torch.nn.functional as F


class TextCNN(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_classes, kernel_sizes=(2, 3, 4), filters=8):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.convs = nn.ModuleList([nn.Conv1d(embed_dim, filters, k) for k in kernel_sizes])
        self.dropout = nn.Dropout(0.5)
        self.fc = nn.Linear(filters * len(kernel_sizes), num_classes)

    def forward(self, tokens):
        x = self.embedding(tokens).transpose(1, 2)  # (batch, embed, seq)
        pooled = [F.relu(conv(x)).max(dim=2).values for conv in self.convs]
        return self.fc(self.dropout(torch.cat(pooled, dim=1)))


torch.manual_seed(0)
model = TextCNN(vocab_size=50, embed_dim=12, num_classes=3)
print(model)
tokens = torch.randint(1, 50, (6, 15))
tokens[:, 12:] = 0  # padding at the end of each sentence
labels = torch.tensor([0, 1, 2, 0, 1, 2])
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(4):
    model.train()
    optimizer.zero_grad()
    loss = F.cross_entropy(model(tokens), labels)
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
print("padding row grad is zero:", bool((model.embedding.weight.grad[0] == 0).all()))
model.eval()
with torch.no_grad():
    print("predictions:", model(tokens).argmax(1).tolist())
