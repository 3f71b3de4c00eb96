# loss.detach().cpu().numpy() and item(): common ways to leave the graph for logging.
import torch

w = torch.tensor([1.0, -2.0], requires_grad=True)
out = w * 3
arr = out.detach().cpu().numpy()
print(arr.tolist(), arr.dtype)
arr[0] = 42.0
print(out)
print(out.cpu() is out, w.cpu().requires_grad)
print(out.detach().tolist(), out.sum().item())
