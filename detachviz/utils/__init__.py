"""torch.utils for detachviz scripts: only `torch.utils.data` (datasets, samplers,
DataLoader)."""

from __future__ import annotations

from detachviz.engine import namespace as _ns
from detachviz.utils import data

__all__ = ["data"]

# a name torch has and detachviz lacks: "torch.utils.X is not supported by detachviz"
__getattr__ = _ns.module_getattr(globals(), "torch.utils", {}, methods=False)
