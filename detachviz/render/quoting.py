"""Turning user text (names, error messages, attrs) into safe DOT label strings, in one place."""

from __future__ import annotations

import re

from graphviz import nohtml

# DOT escString sequences (\n, \l, \N, \G, ...) are live inside quoted labels, so every
# backslash the user wrote is doubled first; quotes are escaped so the graphviz package
# keeps them (it only escapes quotes that are not already escaped). Line breaks become the
# escape `\n` so each DOT statement stays on one line (golden files diff line by line).
_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n"})


# Characters no SVG (XML 1.0) may contain, even escaped, that Graphviz cannot read (NUL), or
# that cannot be encoded at all (a lone surrogate): shown as the Python escape that names
# them (`\x07`, `\udc80`), so the picture stays valid and says what was there.
_INVISIBLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def _shown(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` with control characters and lone surrogates replaced by their escapes."""
    return _INVISIBLE.sub(_shown, text)


def label(text: str) -> str:
    """A DOT label showing exactly `text`, line breaks included.

    The result is wrapped in `graphviz.nohtml` so a name like `<x>` is drawn literally
    instead of being parsed as an HTML-like label.
    """
    text = visible(text.replace("\r\n", "\n").replace("\r", "\n"))
    return nohtml(text.translate(_ESCAPES))
