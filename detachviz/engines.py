"""The engines a script can run on: the one table `--engine`, `DETACHVIZ_ENGINE`,
`detachviz.trace(engine=...)` and `%%detachviz --engine` read. Imports nothing heavy: the
torch engine (and torch itself) loads only when it is chosen.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from detachviz.errors import UserError


class Engine(NamedTuple):
    """name    as typed after --engine
    help    one line for --help
    """

    name: str
    help: str


DETACHVIZ, TORCH = "detachviz", "torch"
ENGINES: tuple[Engine, ...] = (
    Engine(DETACHVIZ, "detachviz's numpy engine"),
    Engine(TORCH, "the installed PyTorch, traced"),
)
ENGINE_NAMES = tuple(e.name for e in ENGINES)
DEFAULT_ENGINE = DETACHVIZ
ENV = "DETACHVIZ_ENGINE"  # the default when no --engine is given


def engines_help() -> str:
    return " or ".join(f"{e.name} ({e.help})" for e in ENGINES)


def resolve(name: str | None) -> str:
    """The engine to use: `name`, else $DETACHVIZ_ENGINE, else detachviz (UserError if
    unknown)."""
    chosen = name if name else os.environ.get(ENV) or DEFAULT_ENGINE
    for engine in ENGINE_NAMES:
        if chosen.strip().lower() == engine:
            return engine
    where = "--engine" if name else ENV
    raise UserError(f"unknown {where} {chosen!r}: use one of {', '.join(ENGINE_NAMES)}")


def require(name: str | None) -> str:
    """`resolve`, and for the torch engine check that PyTorch imports (UserError, exit 2,
    saying how to install it), before any script runs."""
    chosen = resolve(name)
    if chosen == TORCH:
        from detachviz import torch_engine

        torch_engine.load()
    return chosen
