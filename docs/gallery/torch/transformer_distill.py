# Self-distillation with a TransformerEncoderLayer on real PyTorch: the student sees masked
# tokens, the teacher (an exponential moving average of the student) the whole sequence,
# under no_grad, so its parameters get no gradient from the loss: the EMA updates them.
import copy

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)

student = nn.TransformerEncoderLayer(
    d_model=16, nhead=2, dim_feedforward=32, dropout=0.0, batch_first=True
)
teacher = copy.deepcopy(student)
embed = nn.Embedding(50, 16)
tokens = torch.randint(1, 50, (2, 5))
masked = tokens.masked_fill(torch.rand(2, 5) < 0.3, 0)  # token 0 is [MASK]

with torch.no_grad():
    target = teacher(embed(tokens))  # the teacher's view: a constant for this step
out = student(embed(masked))
loss = F.mse_loss(out, target)
loss.backward()

with torch.no_grad():  # the EMA update of the teacher
    for t, s in zip(teacher.parameters(), student.parameters()):
        t.mul_(0.99).add_(s, alpha=0.01)
print(f"loss {loss.item():.4f}")
