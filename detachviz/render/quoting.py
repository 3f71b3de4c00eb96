"""Turning user text (names, error messages, attrs) into safe DOT label strings, in one place."""

from __future__ import annotations

from graphviz import nohtml

# DOT escString sequences (\n, \l, \N, \G, ...) are live inside quoted labels, so every
# backslash the user wrote is doubled first; quotes are escaped so the graphviz package
# keeps them (it only escapes quotes that are not already escaped). Line breaks become the
# escape `\n` so each DOT statement stays on one line (golden files diff line by line).
_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n"})


def label(text: str) -> str:
    """A DOT label showing exactly `text`, line breaks included.

    The result is wrapped in `graphviz.nohtml` so a name like `<x>` is drawn literally
    instead of being parsed as an HTML-like label.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return nohtml(text.translate(_ESCAPES))
