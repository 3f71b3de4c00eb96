"""torch.utils for detachviz scripts: only `torch.utils.data` (datasets, samplers,
DataLoader)."""

from __future__ import annotations

from detachviz.utils import data

__all__ = ["data"]
