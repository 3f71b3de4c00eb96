"""detachviz.markup: status-line markup without rich, checked against rich itself."""

from __future__ import annotations

import random

import pytest
from rich.markup import escape as rich_escape
from rich.text import Text

from detachviz import markup

PIECES = ["[", "]", "\\", "\\\\", "\\[", "a", "b", "/", "#", " ", "x=1", "[/]", "[bold]", "é"]


def _texts(n: int) -> list[str]:
    rng = random.Random(17)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 12))) for _ in range(n)]


@pytest.mark.parametrize(
    "text",
    ["plain", "[bold]not a tag[/]", "C:\\dir\\[x]", "[[x]]", "\\\\[red]", "w[0] = 1"],
)
def test_escape_shows_the_text_itself(text: str) -> None:
    line = f"[bold red]error:[/] {markup.escape(text)}"
    assert markup.plain(line) == "error: " + text
    assert markup.escape(text) == rich_escape(text)


def test_escape_and_plain_agree_with_rich_on_random_text() -> None:
    for text in _texts(3000):
        assert markup.escape(text) == rich_escape(text), text
        for line in (f"[green]wrote[/] {markup.escape(text)}", text):
            try:
                shown = Text.from_markup(line, emoji=False).plain
            except Exception:  # rich refuses a closing tag with nothing open
                continue
            assert markup.plain(line) == shown, line
