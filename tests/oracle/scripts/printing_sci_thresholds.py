# The sci-notation switch: max/min ratio > 1000, or max > 1e8, or min < 1e-4 (nonzero).
import torch

vals = [
    [1.0, 1000.0],
    [1.0, 1001.0],
    [0.1, 100.0],
    [0.1, 100.5],
    [1e8],
    [1.5e8],
    [0.0001],
    [0.00009],
    [0.0, 5e-5],
    [float("nan")],
    [float("inf"), -1.0],
    [-0.0, 1e10],
    [123.456, 0.5],
    [1e-4, 0.1],
]
for v in vals:
    print(torch.tensor(v))
