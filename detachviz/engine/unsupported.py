"""The one way a name detachviz lacks is refused: `AttributeError: torch.nn.X is not supported
by detachviz`, for module namespaces, namespace objects (`torch.cuda`), tensors and modules."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def refuse(qualname: str) -> AttributeError:
    """The error for a missing `qualname` (torch's dotted spelling, `torch.nn.X`)."""
    return AttributeError(f"{qualname} is not supported by detachviz")


class Refused:
    """A class attribute standing for a name torch has and detachviz lacks: reading it, on an
    instance or the class, raises `refuse(qualname)` (so `hasattr` is False, as before)."""

    __slots__ = ("qualname",)

    def __init__(self, qualname: str) -> None:
        self.qualname = qualname

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        raise refuse(self.qualname)


def refuse_names(cls: type, prefix: str, names: Iterable[str]) -> None:
    """Give `cls` a `Refused` for each of `names` it does not provide."""
    for name in names:
        if name not in cls.__dict__:
            setattr(cls, name, Refused(f"{prefix}.{name}"))


class Namespace:
    """Base of the objects that stand in for a torch submodule (`torch.cuda`,
    `torch.backends.mps`): a name they lack is refused under their torch path `_path`."""

    _path = "torch"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        raise refuse(f"{self._path}.{name}")
