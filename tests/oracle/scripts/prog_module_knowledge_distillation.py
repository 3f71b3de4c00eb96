# Knowledge distillation: student matches the teacher's softened outputs (KL) plus hard labels.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
teacher = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4))
student = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 4))
teacher.eval()
opt = torch.optim.Adam(student.parameters(), lr=0.01)
kl = nn.KLDivLoss(reduction="batchmean")
ce = nn.CrossEntropyLoss()
T, alpha = 3.0, 0.7
x = torch.randn(32, 8)
labels = torch.randint(0, 4, (32,))
for step in range(6):
    with torch.no_grad():
        soft_targets = F.softmax(teacher(x) / T, dim=1)
    logits = student(x)
    distill = kl(F.log_softmax(logits / T, dim=1), soft_targets) * T * T
    hard = ce(logits, labels)
    loss = alpha * distill + (1 - alpha) * hard
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: kd={distill.item():.4f} ce={hard.item():.4f} total={loss.item():.4f}")
print(type(distill.grad_fn).__name__, type(loss.grad_fn).__name__)
agree = (student(x).argmax(1) == teacher(x).argmax(1)).float().mean()
print(f"agreement {agree.item():.3f}")
