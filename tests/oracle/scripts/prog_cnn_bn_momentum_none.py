# BatchNorm2d(momentum=None) keeps a cumulative average; momentum=0.1 an exponential one.
import torch
import torch.nn as nn

torch.manual_seed(0)
cumulative = nn.BatchNorm2d(2, momentum=None)
exponential = nn.BatchNorm2d(2)
batches = [torch.randn(4, 2, 3, 3) * (k + 1) + k for k in range(4)]
for k, batch in enumerate(batches):
    cumulative(batch)
    exponential(batch)
    print(k, [round(v, 4) for v in cumulative.running_mean.tolist()],
          [round(v, 4) for v in exponential.running_mean.tolist()])  # fmt: skip
print("cumulative var:", [round(v, 4) for v in cumulative.running_var.tolist()])
print("tracked:", cumulative.num_batches_tracked.item())
cumulative.reset_running_stats()
print("after reset:", cumulative.running_mean, cumulative.running_var)
print("tracked after reset:", cumulative.num_batches_tracked)
no_stats = nn.BatchNorm2d(2, track_running_stats=False).eval()
out = no_stats(batches[0])
print("no running stats, eval uses batch stats:", f"{out.mean().item():.4f}")
print(no_stats.running_mean, no_stats.num_batches_tracked)
