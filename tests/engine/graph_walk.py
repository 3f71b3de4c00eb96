"""The backward graph under a tensor, as lines both engines can be compared on."""

from __future__ import annotations

from typing import Any


def graph(t: Any) -> list[str]:
    """The backward graph under t as `depth:Name -> Next, Next` lines, depth-first in
    next_functions order (so both the names and the wiring must agree); a node reached twice
    is listed each time (explicit stack, no recursion)."""
    lines, stack = [], [(t.grad_fn, 0)]
    while stack:
        node, depth = stack.pop()
        nexts = [n for n, _ in node.next_functions]
        names = ", ".join("None" if n is None else n.name() for n in nexts)
        lines.append(f"{depth}:{node.name()} -> {names}")
        stack.extend((n, depth + 1) for n in reversed(nexts) if n is not None)
    return lines
