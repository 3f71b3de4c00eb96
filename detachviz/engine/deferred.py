"""Op families imported on first use, so that a script using a few ops does not load them all.

The tables that bind ops under torch's names (engine/methods.py's Tensor methods,
detachviz/torch/__init__.py, engine/namespace.py's `torch._C._nn`) name a family that is in
`DEFERRED` through `family("decomp")` instead of importing it. Until the family is imported,
`family("decomp").det` is a `Deferred` stand-in: callable (as a function, and as a method
through `__get__`), listed by `dir`, found by `hasattr`. Its first call imports the family and
puts the real function in every place (`site`) the stand-in was bound, then binds torch's
call forms there again (`signatures.bind_*`), so later calls cost nothing extra. Reading any
other attribute (`__doc__`, `__wrapped__`, `inspect.signature`) imports the family as well.
After the import the handle gives the family's own attributes.

This module imports no engine module: the tables register their sites themselves.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable
from typing import Any

# The families a plain script rarely needs; the others are imported at engine import (lower
# layers and the Python operators need them: arith, compare, index, inplace, join, linalg,
# reduce, unary, view). Importing one of these directly (nn does) is always fine.
DEFERRED = frozenset(
    {
        "activation",
        "arrange",
        "attention",
        "conv",
        "counting",
        "decomp",
        "einsum",
        "embedding",
        "layernorm",
        "layout",
        "loss",
        "matnorm",
        "norm",
        "pad",
        "pointwise",
        "pool",
        "rnn",
        "saving",
        "scan",
        "scatter",
        "sort",
        "special",
        "stats",
        "totals",
    }
)
PACKAGE = "detachviz.engine.ops"

# Where stand-ins were bound: (a class, or a module's globals; what to run after replacing)
_SITES: list[tuple[Any, Callable[[], None] | None]] = []


class Deferred:
    """`name` of the op family `family`, not imported yet (see the module docstring); once
    registered with `site`, also where it is bound (`where[key]`), so that its first call
    runs what is bound there after the import (torch's call forms included)."""

    __slots__ = ("family", "name", "where", "key")

    def __init__(self, family: str, name: str, where: Any = None, key: str = "") -> None:
        self.family = family
        self.name = name
        self.where = where
        self.key = key

    def real(self) -> Any:
        module = load(self.family)
        if self.where is None:
            return getattr(module, self.name)
        table = self.where if isinstance(self.where, dict) else vars(self.where)
        return _unwrapped(table[self.key])

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.real()(*args, **kwargs)

    def __get__(self, obj: Any, cls: Any = None) -> Any:
        if obj is None:
            return self
        return types.MethodType(self.real(), obj)

    def __getattr__(self, attr: str) -> Any:
        if attr in Deferred.__slots__:  # not set yet (copy, pickle): no import for that
            raise AttributeError(attr)
        if attr in ("__name__", "__qualname__"):  # what staticmethod() copies: no import
            return self.name
        if attr == "__annotations__":
            return {}
        return getattr(self.real(), attr)

    def __repr__(self) -> str:
        return repr(self.real())


class Family:
    """The handle a table names a deferred family by: `handle.fn` is a `Deferred` until the
    family is imported, the family's own attribute after."""

    __slots__ = ("_name", "_rows")

    def __init__(self, name: str) -> None:
        self._name = name
        self._rows: dict[str, Deferred] = {}

    def __getattr__(self, attr: str) -> Any:
        module = sys.modules.get(f"{PACKAGE}.{self._name}")
        if module is not None:
            return getattr(module, attr)
        row = self._rows.get(attr)
        if row is None:
            row = self._rows[attr] = Deferred(self._name, attr)
        return row


_HANDLES: dict[str, Family] = {}


def family(name: str) -> Any:
    """The handle of op family `name` (one per family); the module itself when it is not
    deferred or already imported."""
    if name not in DEFERRED:
        raise ValueError(f"{name} is not a deferred op family")
    module = sys.modules.get(f"{PACKAGE}.{name}")
    if module is not None:
        return module
    handle = _HANDLES.get(name)
    if handle is None:
        handle = _HANDLES[name] = Family(name)
    return handle


def site(where: Any, rebind: Callable[[], None] | None = None) -> None:
    """Register a class or a module's globals that holds stand-ins (each then knows where it
    is bound); `rebind` runs after they are replaced (the call forms of signatures.py)."""
    table = where if isinstance(where, dict) else vars(where)
    for key, value in list(table.items()):
        row = _unwrapped(value)
        if isinstance(row, Deferred):
            bound = Deferred(row.family, row.name, where, key)
            bound_value = staticmethod(bound) if isinstance(value, staticmethod) else bound
            if isinstance(where, dict):
                where[key] = bound_value
            else:
                setattr(where, key, bound_value)
    _SITES.append((where, rebind))


def _unwrapped(value: Any) -> Any:
    return value.__func__ if isinstance(value, staticmethod) else value


def load(name: str) -> Any:
    """Import op family `name` and put its functions wherever its stand-ins were bound."""
    path = f"{PACKAGE}.{name}"
    module = sys.modules.get(path)
    if module is not None and name not in _HANDLES:
        return module
    module = importlib.import_module(path)
    handle = _HANDLES.pop(name, None)
    for where, rebind in _SITES:
        table = where if isinstance(where, dict) else vars(where)
        found = False
        for key, value in list(table.items()):
            row = _unwrapped(value)
            if row is handle:  # the table's name for the family: the module from now on
                table[key] = module
            elif isinstance(row, Deferred) and row.family == name:
                real = getattr(module, row.name)
                real = staticmethod(real) if isinstance(value, staticmethod) else real
                if isinstance(where, dict):
                    where[key] = real
                else:
                    setattr(where, key, real)
                found = True
        if found and rebind is not None:
            rebind()
    return module


def pending() -> list[tuple[str, str]]:
    """The (family, name) of every stand-in still bound somewhere, sorted."""
    rows = set()
    for where, _ in _SITES:
        table = where if isinstance(where, dict) else vars(where)
        for value in table.values():
            row = _unwrapped(value)
            if isinstance(row, Deferred):
                rows.add((row.family, row.name))
    return sorted(rows)


def load_all() -> None:
    """Import every deferred family (for what walks all ops: the node-class registry)."""
    for name in sorted(DEFERRED):
        load(name)
