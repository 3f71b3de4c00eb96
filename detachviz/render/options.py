"""What a drawing can be asked for: the output formats, the rank directions, `DrawOptions`.

Each table is the one definition: the CLI's choices and help, the pipeline's validation and
the backend's `-T` values all derive from it. Adding an output format is one `Format` row
(plus, for a format the layout backend does not write, the branch in `render.draw`).
The tables' rows are NamedTuples: every command defines these classes at start-up, and a
frozen dataclass takes ~0.8 ms to make (it compiles six methods); `DrawOptions` and `HtmlView`,
which validate or default a mutable field, stay dataclasses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from detachviz.errors import UserError


class Program(NamedTuple):
    """A layout program (`--renderer`): its name, the file looked up, how to get it.
    Which formats it cannot write is said by `Format.lacks`."""

    name: str
    executable: str
    missing_hint: str


PROGRAMS: dict[str, Program] = {
    p.name: p
    for p in (
        Program(
            "graphviz-pure",
            "graphviz-pure",
            "graphviz-pure not found: pip install graphviz-pure==0.2.2, or pass --renderer dot",
        ),
        Program(
            "dot",
            "dot",
            "Graphviz 'dot' not found on PATH: install Graphviz (e.g. apt install graphviz), "
            "or use the default renderer graphviz-pure",
        ),
    )
}
RENDERERS = tuple(PROGRAMS)
DEFAULT_RENDERER = "graphviz-pure"


class Format(NamedTuple):
    """One output format.

    name     the `-f` value and the file suffix
    tvalue   the layout program's `-T` value; None when no layout program writes it (dot
             is the DOT source itself, json the graph model, html a page around the svg)
    raster   a bitmap: its pixel size is capped before the program draws it
    lacks    renderers that cannot write it
    via_svg  renderers whose program cannot write it, so the backend translates their svg
             (graphviz-pure's pdf: `render/pdf.py`)
    backend  written by the backend (`backend.render_source`: a layout program, or the DOT
             source); False: `render.draw` makes it itself (json, html)
    aliases  other `-f` values and suffixes meaning the same format
    note     shown after the name in help text
    """

    name: str
    tvalue: str | None
    raster: bool = False
    lacks: tuple[str, ...] = ()
    via_svg: tuple[str, ...] = ()
    backend: bool = True
    aliases: tuple[str, ...] = ()
    note: str = ""


FORMATS: tuple[Format, ...] = (
    Format("svg", "svg"),
    Format("png", "png", raster=True),
    Format("jpg", "jpeg", raster=True, aliases=("jpeg",)),
    Format("pdf", "pdf", via_svg=("graphviz-pure",)),
    Format("html", None, backend=False, note="an interactive page"),
    Format("dot", None, aliases=("gv",), note="the DOT source"),
    Format("json", None, backend=False, note="the graph model"),
)
FORMAT_NAMES = tuple(f.name for f in FORMATS)
FORMAT_BY_NAME = {spelling: f for f in FORMATS for spelling in (f.name, *f.aliases)}
DEFAULT_FORMAT = "svg"


def find_format(name: str) -> Format | None:
    """The format `name` (or an alias) spells, case-insensitively; None if none does."""
    return FORMAT_BY_NAME.get(name.lower())


def formats_for(renderer: str) -> tuple[str, ...]:
    """The format names `renderer` can write."""
    return tuple(f.name for f in FORMATS if renderer not in f.lacks)


def formats_help() -> str:
    """`svg, png, jpg, pdf, html (an interactive page), dot (the DOT source) or json (...)`."""
    words = [f"{f.name} ({f.note})" if f.note else f.name for f in FORMATS]
    return ", ".join(words[:-1]) + " or " + words[-1]


class Rankdir(NamedTuple):
    """A Graphviz rank direction: the `--rankdir` value and what it means."""

    name: str
    meaning: str


RANKDIRS: tuple[Rankdir, ...] = (
    Rankdir("TB", "top-down"),
    Rankdir("LR", "left-right"),
    Rankdir("BT", "bottom-up"),
    Rankdir("RL", "right-left"),
)
RANKDIR_NAMES = tuple(r.name for r in RANKDIRS)
DEFAULT_RANKDIR = "TB"


def rankdirs_help() -> str:
    """`TB (top-down), LR (left-right), BT (bottom-up) or RL (right-left)`."""
    words = [f"{r.name} ({r.meaning})" for r in RANKDIRS]
    return ", ".join(words[:-1]) + " or " + words[-1]


DEFAULT_DPI = 96.0


def parse_size(text: str) -> tuple[float, float, bool]:
    """A Graphviz `size` ("7.5,10", "8", "8,8!") as (width, height, fill) in inches;
    ValueError if it is not one."""
    value = text.strip()
    fill = value.endswith("!")
    parts = value.rstrip("!").split(",")
    if len(parts) > 2:
        raise ValueError(text)
    w = float(parts[0])
    h = float(parts[1]) if len(parts) > 1 else w
    if not (0 < w < float("inf") and 0 < h < float("inf")):
        raise ValueError(text)
    return w, h, fill


@dataclass(frozen=True)
class DrawOptions:
    """How to draw a graph model. Built by keyword, passed unchanged CLI -> renderer."""

    rankdir: str = DEFAULT_RANKDIR
    legend: bool = False
    show_attrs: bool = False
    show_saved: bool = False
    expand: bool = False
    # Collapsed boxes to draw in full, each named by its op (`MulBackward0`), the variable it
    # made (`h`) or its script line (`12`); `expand` draws every one.
    expand_nodes: tuple[str, ...] = ()
    renderer: str | None = None  # None: $DETACHVIZ_RENDERER, else DEFAULT_RENDERER
    size: str | None = None  # Graphviz `size` in inches ("8,10", "8", "8,10!"); None: by content
    dpi: float | None = None  # pixels per inch of png/jpg; None: DEFAULT_DPI

    def __post_init__(self) -> None:
        if self.rankdir not in RANKDIR_NAMES:
            raise UserError(
                f"unknown rankdir {self.rankdir!r}: use one of {', '.join(RANKDIR_NAMES)}"
            )
        if self.size is not None:
            try:
                parse_size(self.size)
            except ValueError:
                raise UserError(
                    f"bad size {self.size!r}: give inches as WIDTH,HEIGHT (e.g. 8,10), one "
                    "number for both, or add ! to scale up as well as down (8,10!)"
                ) from None
        if self.dpi is not None and (
            isinstance(self.dpi, bool)
            or not isinstance(self.dpi, (int, float))
            or not (1 <= self.dpi <= 2400)
        ):
            shown = f"{self.dpi:g}" if isinstance(self.dpi, (int, float)) else repr(self.dpi)
            raise UserError(f"bad dpi {shown}: give pixels per inch from 1 to 2400")
        for name in self.expand_nodes:
            if not name.strip():
                raise UserError("--expand-node needs a name: an op, a variable or a line")


DEFAULT_DRAW = DrawOptions()


def size_text(size: str | float | tuple[float, float] | None) -> str | None:
    """The Python API's `size` (8, (8, 10) or the CLI's "8,10") as `DrawOptions.size`."""
    if size is None or isinstance(size, str):
        return size
    if isinstance(size, (int, float)) and not isinstance(size, bool):
        return f"{size:g}"
    if isinstance(size, tuple) and len(size) == 2:
        return ",".join(f"{v:g}" if isinstance(v, (int, float)) else str(v) for v in size)
    return str(size)  # DrawOptions says what a size is


def expand_names(names: str | int | Sequence[str | int]) -> tuple[str, ...]:
    """The Python API's `expand_nodes` ("h", 12 or a list of them) as the CLI's names."""
    items = [names] if isinstance(names, (str, int)) else list(names)
    return tuple(str(name) for name in items)


@dataclass(frozen=True)
class HtmlView:
    """What the html format shows besides the drawing (`render.draw(..., view=)`).

    title    the page's title (the script's name)
    source   the code's lines: each node's and cut's tooltip quotes its line
    details  per model node id, extra tooltip rows (dtype, grad: `pipeline.tensor_details`)
    page     a whole document (True), or one embeddable `<div>` (a notebook's text/html)
    """

    title: str = "detachviz"
    source: Sequence[str] = ()
    details: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    page: bool = True


DEFAULT_VIEW = HtmlView()
