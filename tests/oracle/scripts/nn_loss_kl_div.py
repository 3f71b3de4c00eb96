# kl_div: batchmean/sum/none/mean and log_target; the graph torch builds for each.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
logits = torch.randn(4, 5, requires_grad=True)
teacher = torch.randn(4, 5)
logp = F.log_softmax(logits, dim=1)
q = F.softmax(teacher, dim=1)
for red in ("batchmean", "sum", "mean"):
    loss = F.kl_div(logp, q, reduction=red)
    (g,) = torch.autograd.grad(loss, logits, retain_graph=True)
    print(red, f"{loss.item():.5f}", type(loss.grad_fn).__name__, g[0])
none = F.kl_div(logp, q, reduction="none")
print(none[0], type(none.grad_fn).__name__)
lt = nn.KLDivLoss(reduction="batchmean", log_target=True)(logp, F.log_softmax(teacher, 1))
print(f"{lt.item():.5f}", type(lt.grad_fn).__name__, type(lt.grad_fn.next_functions[0][0]).__name__)
zero = F.kl_div(logp, torch.zeros(4, 5), reduction="sum")
print(zero)
