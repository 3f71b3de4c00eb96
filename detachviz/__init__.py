"""detachviz: see where gradients flow and where they are cut.

The Python API (`trace`, `explain`, `Drawing`, ...) is loaded on first use, so that
`import detachviz` (and the CLI's start) stays cheap; `%load_ext detachviz` calls
`load_ipython_extension`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["Drawing", "Explanation", "Trace", "explain", "load_ipython_extension", "trace"]

if TYPE_CHECKING:
    from detachviz.api import Drawing, Explanation, Trace, explain, trace

_API = ("Drawing", "Explanation", "Trace", "explain", "trace")


def __getattr__(name: str) -> Any:
    if name in _API:
        from detachviz import api

        return getattr(api, name)
    raise AttributeError(f"module 'detachviz' has no attribute {name!r}")


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext detachviz`: register `%%detachviz` and `%detachviz_grad`."""
    from detachviz import notebook

    notebook.load(ipython)
