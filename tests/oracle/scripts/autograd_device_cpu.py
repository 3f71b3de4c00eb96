import torch

d = torch.device("cpu")
print(d, repr(d), d.type, d.index)
print(torch.device("cuda:1"), repr(torch.device("cuda", 0)), torch.device("cpu", 0))
print(d == torch.device("cpu"), d == "cpu", d == torch.device("cpu", 0))
x = torch.ones(2, device="cpu")
print(x.device, x.is_cuda, x.is_cpu, x.get_device())
print(torch.zeros(2, device=d).device, torch.randn(2, device="cpu").shape)
print(x.cpu() is x, x.to(d) is x)
print(torch.cuda.is_available(), torch.cuda.device_count())
print(torch.backends.mps.is_available(), torch.backends.cudnn.is_available())
print(torch.accelerator.is_available(), torch.accelerator.current_accelerator())
print(torch.get_default_device())
torch.set_default_device("cpu")
print(torch.ones(1).device)
for s in ["foo", "cuda:x"]:
    try:
        torch.device(s)
    except RuntimeError as e:
        print("RuntimeError:", e)
