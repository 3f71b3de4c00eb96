"""Console markup (rich's `[bold red]...[/]` tags) without importing rich: escaping user
text into a status line and writing a line as the plain text rich would show, for a stderr
that is no terminal. rich itself is loaded only where a terminal gets its styling
(cli.py); importing it costs about a tenth of a `detachviz render` start.

The format: a tag is `[` then a letter, `#`, `/` or `@`, then anything but `[` up to the
first `]`. Backslashes right before a tag pair up: each pair is one literal backslash, and
an odd one left over makes the tag literal text. Elsewhere `\\[` shows as `[`.
"""

from __future__ import annotations

import re

_TAG = re.compile(r"(\\*)(\[[a-z#/@][^[]*?\])")


def escape(text: str) -> str:
    """`text` as markup that shows exactly `text` (tags made literal)."""

    def literal(m: re.Match[str]) -> str:
        slashes = m.group(1)
        return f"{slashes}{slashes}\\{m.group(2)}"

    out = _TAG.sub(literal, text)
    if out.endswith("\\") and not out.endswith("\\\\"):
        out += "\\"  # a lone trailing backslash would escape what follows the insertion
    return out


def plain(markup: str) -> str:
    """What `markup` shows with its styling dropped (a `\\[` outside any tag shows as `[`)."""
    out: list[str] = []
    at = 0
    for m in _TAG.finditer(markup):
        out.append(markup[at : m.start()].replace("\\[", "["))
        pairs, odd = divmod(len(m.group(1)), 2)
        out.append("\\" * pairs + (m.group(2) if odd else ""))
        at = m.end()
    out.append(markup[at:].replace("\\[", "["))
    return "".join(out)
