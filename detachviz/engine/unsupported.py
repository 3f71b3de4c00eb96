"""The one way a name detachviz lacks is refused: `AttributeError: torch.nn.X is not supported
by detachviz`, for module namespaces, namespace objects (`torch.cuda`), tensors and modules."""

from __future__ import annotations

from typing import Any


def refuse(qualname: str) -> AttributeError:
    """The error for a missing `qualname` (torch's dotted spelling, `torch.nn.X`)."""
    return AttributeError(f"{qualname} is not supported by detachviz")


class Namespace:
    """Base of the objects that stand in for a torch submodule (`torch.cuda`,
    `torch.backends.mps`): a name they lack is refused under their torch path `_path`."""

    _path = "torch"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        raise refuse(f"{self._path}.{name}")
