"""Containers: `Sequential` (chains modules) and `ModuleList` (holds them)."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

from detachviz.nn.module import Module


def _index(idx: Any, size: int) -> int:
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


class Sequential(Module):
    """Modules applied in order; indexable (a slice is a Sequential), sized and iterable.
    Children are named "0", "1", ... or by the keys of an OrderedDict."""

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def __getitem__(self, idx: int | slice) -> Any:
        items = list(self._modules.items())
        if isinstance(idx, slice):
            return type(self)(OrderedDict(items[idx]))
        return items[_index(idx, len(items))][1]

    def __setitem__(self, idx: int, module: Module) -> None:
        key = list(self._modules)[_index(idx, len(self._modules))]
        setattr(self, key, module)

    def __delitem__(self, idx: int | slice) -> None:
        keys = list(self._modules)
        for key in keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(keys))]]:
            delattr(self, key)
        # torch renumbers the remaining children to keep the names 0..n-1
        kept = list(self._modules.values())
        self._modules.clear()
        for i, module in enumerate(kept):
            self._modules[str(i)] = module

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def forward(self, input: Any) -> Any:
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules, registered as children "0", "1", ..."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx: int | slice) -> Any:
        values = list(self._modules.values())
        if isinstance(idx, slice):
            return type(self)(values[idx])
        return values[_index(idx, len(values))]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, str(_index(idx, len(self))), module)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        for module in modules:
            self.append(module)
        return self
