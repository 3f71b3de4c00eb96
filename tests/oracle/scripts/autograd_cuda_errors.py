import torch

x = torch.ones(2)
for name, fn in [
    ("cuda()", lambda: x.cuda()),
    ("to('cuda')", lambda: x.to("cuda")),
    ("device='cuda'", lambda: torch.zeros(2, device="cuda")),
    ("device=0", lambda: torch.zeros(2, device=0)),
    ("to('mps')", lambda: x.to("mps")),
    ("xpu", lambda: torch.ones(1, device="xpu")),
    ("current_device", lambda: torch.cuda.current_device()),
    ("accelerator index", lambda: torch.accelerator.current_device_index()),
]:
    try:
        fn()
    except (AssertionError, RuntimeError) as e:
        print(name, type(e).__name__ + ":", e)
