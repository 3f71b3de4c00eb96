"""Turning user text (names, error messages, attrs) into safe DOT strings, in one place: the
label escapes and the DOT quoting rules `render.dotwriter` writes statements with."""

from __future__ import annotations

import re

# DOT escString sequences (\n, \l, \N, \G, ...) are live inside quoted labels, so every
# backslash the user wrote is doubled first; quotes are escaped (`quote` leaves an escaped
# quote as it is). Line breaks become the escape `\n` so each DOT statement stays on one line
# (golden files diff line by line).
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


class Label(str):
    """Label text already escaped by `label`: always quoted, never read as an HTML-like
    label (`<x>` is drawn as written)."""

    __slots__ = ()


def label(text: str) -> Label:
    """A DOT label showing exactly `text`, line breaks included."""
    text = visible(text.replace("\r\n", "\n").replace("\r", "\n"))
    return Label(text.translate(_ESCAPES))


# The DOT language's rules (graphviz.org/doc/info/lang.html), as the `graphviz` package
# applies them, so a drawing's source is the same whether we or a `graphviz.Digraph` write it.
_BARE_ID = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?))$")
_HTML_LIKE = re.compile(r"<.*>$", re.DOTALL)
_KEYWORDS = frozenset({"node", "edge", "graph", "digraph", "subgraph", "strict"})
# A quote, escaped or not, after any run of escaped backslashes: written escaped once.
_QUOTE = re.compile(r'((?:\\\\)*)\\?"')


def quote(value: str) -> str:
    """`value` as a DOT ID: bare when it is a plain name or number, as written when it is an
    HTML-like `<...>` string (not a `Label`), else in double quotes."""
    if _HTML_LIKE.match(value) and not isinstance(value, Label):
        return value
    if not _BARE_ID.match(value) or value.lower() in _KEYWORDS:
        return '"' + _QUOTE.sub(r'\1\\"', value) + '"'
    return value


def quote_endpoint(endpoint: str) -> str:
    """An edge end `node[:port[:compass]]`, each part quoted on its own."""
    node, _, rest = endpoint.partition(":")
    if not rest:
        return quote(node)
    port, _, compass = rest.partition(":")
    return quote(node) + ":" + quote(port) + (":" + compass if compass else "")


def attr_list(label_text: str | None, attrs: dict[str, str]) -> str:
    """` [label=... key=value ...]`: the label first, then the attributes sorted by name
    (None values left out); "" when there are none."""
    items = [f"label={quote(label_text)}"] if label_text is not None else []
    items += [f"{quote(k)}={quote(v)}" for k, v in sorted(attrs.items()) if v is not None]
    return f" [{' '.join(items)}]" if items else ""
