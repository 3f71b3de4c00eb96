# Binary cross-entropy: BCELoss on probabilities and BCEWithLogitsLoss on logits.
import torch
import torch.nn as nn

logits = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
target = torch.tensor([1.0, 0.0, 1.0])
bce = nn.BCELoss()(torch.sigmoid(logits), target)
bcel = nn.BCEWithLogitsLoss()(logits, target)
print(f"{bce.item():.5f} {bcel.item():.5f}")
print(type(bce.grad_fn).__name__, type(bcel.grad_fn).__name__)
bcel.backward()
print([round(v, 5) for v in logits.grad.tolist()])
