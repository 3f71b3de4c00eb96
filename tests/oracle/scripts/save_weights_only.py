# weights_only=True (the default) refuses arbitrary classes; weights_only=False loads them.
import io

import torch


class Config:
    def __init__(self, depth):
        self.depth = depth


buf = io.BytesIO()
torch.save({"config": Config(3), "w": torch.ones(1)}, buf)
buf.seek(0)
try:
    torch.load(buf)
except Exception as e:
    print(type(e).__name__, [line for line in str(e).splitlines() if "Unsupported global" in line])
buf.seek(0)
print(torch.load(buf, weights_only=False)["config"].depth)
buf.seek(0)
with torch.serialization.safe_globals([Config]):
    print(torch.load(buf)["config"].depth)
