"""Progress of a long command, reported by the layers below the CLI through a plain callback.

`report("laying out 5,004 nodes")` says what is being done now; nothing happens unless a
listener is installed with `listening()` (the CLI does, and shows it on a terminal only).
Imports nothing, so any layer may report.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

_listener: Callable[[str], None] | None = None


def report(stage: str) -> None:
    """Tell the listener, if any, what is being done now."""
    if _listener is not None:
        _listener(stage)


@contextlib.contextmanager
def listening(listener: Callable[[str], None]) -> Iterator[None]:
    """Send every `report()` made inside the block to `listener`."""
    global _listener
    previous, _listener = _listener, listener
    try:
        yield
    finally:
        _listener = previous
