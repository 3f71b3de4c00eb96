"""PDF without system Graphviz: graphviz-pure's SVG translated into PDF drawing operators.

graphviz-pure 0.2.2 writes no pdf. Its SVG is a small, known subset — `g` with a transform,
`polygon`, `polyline`, `path` (M/L/C/Z), `ellipse`, `text` — so each element maps onto a few
PDF operators. Text uses the standard-14 fonts (Courier, Helvetica, Times: nothing to embed),
the content is not compressed and nothing dated is written, so the same drawing gives the
same bytes on every machine. `fixed_dates` does the same for a system `dot`'s pdf.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported by svg_to_pdf: every backend import (each render) paid ~10%
    import xml.etree.ElementTree as ET

SVG_NS = "{http://www.w3.org/2000/svg}"

# Standard-14 base fonts by family and weight. Courier is exact (every glyph is 600/1000 em
# wide); for the others a centred label uses an average glyph width, close enough to centre.
FONTS = {
    ("Courier", False): "Courier",
    ("Courier", True): "Courier-Bold",
    ("Helvetica", False): "Helvetica",
    ("Helvetica", True): "Helvetica-Bold",
    ("Times", False): "Times-Roman",
    ("Times", True): "Times-Bold",
}
AVERAGE_WIDTH = {"Courier": 0.6, "Helvetica": 0.55, "Times": 0.5}  # em
FAMILY_OF = {
    "courier": "Courier",
    "courier new": "Courier",
    "monospace": "Courier",
    "helvetica": "Helvetica",
    "arial": "Helvetica",
    "sans-serif": "Helvetica",
    "sans": "Helvetica",
}

KAPPA = 0.5522847498  # control-point distance for a quarter ellipse as one cubic Bézier

_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_PATH_TOKEN = re.compile(r"[A-Za-z]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_TRANSFORM = re.compile(r"(\w+)\(([^)]*)\)")
_DATE = re.compile(rb"/(CreationDate|ModDate)\s*\((D:[^)]*)\)")
FIXED_DATE = b"D:19700101000000Z"


class PdfError(ValueError):
    """The SVG uses something this translator does not know."""


def _num(v: float) -> str:
    text = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _tag(el: ET.Element) -> str:
    return el.tag[len(SVG_NS) :] if el.tag.startswith(SVG_NS) else el.tag


def _points(text: str) -> list[tuple[float, float]]:
    values = [float(v) for v in _NUMBER.findall(text)]
    return list(zip(values[0::2], values[1::2]))


def _length(text: str | None) -> float:
    """A length in points: graphviz writes "178pt"; px are 3/4 pt."""
    found = _NUMBER.match((text or "").strip())
    if found is None:
        raise PdfError(f"svg with an unreadable width/height: {text!r}")
    value = float(found.group())
    return value * 0.75 if (text or "").strip().endswith("px") else value


# Colours ---------------------------------------------------------------------------------


def _rgb(colour: str | None) -> tuple[float, float, float] | None:
    """An SVG paint as RGB in 0..1, None for none/transparent (graphviz writes SVG colour
    names or #rrggbb)."""
    if colour is None:
        return (0.0, 0.0, 0.0)
    c = colour.strip().lower()
    if c in ("none", "transparent", ""):
        return None
    c = SVG_COLOURS.get(c, c)
    if re.fullmatch(r"#[0-9a-f]{3}", c):
        c = "#" + "".join(ch * 2 for ch in c[1:])
    if re.fullmatch(r"#[0-9a-f]{6}([0-9a-f]{2})?", c):
        return (int(c[1:3], 16) / 255, int(c[3:5], 16) / 255, int(c[5:7], 16) / 255)
    raise PdfError(f"unknown colour {colour!r}")


def _colour_op(rgb: tuple[float, float, float], op: str) -> str:
    return " ".join(_num(v) for v in rgb) + " " + op


# Geometry --------------------------------------------------------------------------------


def _matrix(transform: str) -> list[float]:
    """An SVG transform attribute as one PDF matrix [a b c d e f]."""
    m = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    for name, args in _TRANSFORM.findall(transform):
        v = [float(x) for x in _NUMBER.findall(args)]
        if name == "translate":
            step = [1, 0, 0, 1, v[0], v[1] if len(v) > 1 else 0.0]
        elif name == "scale":
            step = [v[0], 0, 0, v[1] if len(v) > 1 else v[0], 0, 0]
        elif name == "rotate":
            a = math.radians(v[0])
            step = [math.cos(a), math.sin(a), -math.sin(a), math.cos(a), 0, 0]
        elif name == "matrix":
            step = v
        else:
            raise PdfError(f"unsupported transform {name!r}")
        a, b, c, d, e, f = m
        sa, sb, sc, sd, se, sf = step
        m = [
            a * sa + c * sb,
            b * sa + d * sb,
            a * sc + c * sd,
            b * sc + d * sd,
            a * se + c * sf + e,
            b * se + d * sf + f,
        ]
    return m


def _polygon(points: list[tuple[float, float]], close: bool) -> str:
    if not points:
        return ""
    ops = [f"{_num(points[0][0])} {_num(points[0][1])} m"]
    ops += [f"{_num(x)} {_num(y)} l" for x, y in points[1:]]
    return "\n".join(ops) + ("\nh" if close else "")


def _path(d: str) -> str:
    tokens = _PATH_TOKEN.findall(d)
    ops: list[str] = []
    i, command = 0, ""
    while i < len(tokens):
        if tokens[i].isalpha():
            command = tokens[i]
            i += 1
            if command in "Zz":
                ops.append("h")
                continue
        arity = {"M": 2, "L": 2, "C": 6}.get(command)
        if arity is None:
            raise PdfError(f"unsupported path command {command!r}")
        args = tokens[i : i + arity]
        if len(args) < arity:
            raise PdfError(f"path ends inside a {command} command")
        i += arity
        ops.append(
            " ".join(_num(float(a)) for a in args) + {"M": " m", "L": " l", "C": " c"}[command]
        )
        if command == "M":
            command = "L"  # further pairs after a moveto are linetos
    return "\n".join(ops)


def _ellipse(cx: float, cy: float, rx: float, ry: float) -> str:
    kx, ky = rx * KAPPA, ry * KAPPA
    n = _num
    return "\n".join(
        [
            f"{n(cx + rx)} {n(cy)} m",
            f"{n(cx + rx)} {n(cy + ky)} {n(cx + kx)} {n(cy + ry)} {n(cx)} {n(cy + ry)} c",
            f"{n(cx - kx)} {n(cy + ry)} {n(cx - rx)} {n(cy + ky)} {n(cx - rx)} {n(cy)} c",
            f"{n(cx - rx)} {n(cy - ky)} {n(cx - kx)} {n(cy - ry)} {n(cx)} {n(cy - ry)} c",
            f"{n(cx + kx)} {n(cy - ry)} {n(cx + rx)} {n(cy - ky)} {n(cx + rx)} {n(cy)} c",
            "h",
        ]
    )


def _paint(el: ET.Element, outline: str, *, fill_default: str | None) -> str:
    """Fill and/or stroke a shape with the element's colours, dashes and width."""
    fill = _rgb(el.get("fill", fill_default))
    stroke = _rgb(el.get("stroke", "none"))
    if fill is None and stroke is None:
        return ""
    ops = ["q"]
    if fill is not None:
        ops.append(_colour_op(fill, "rg"))
    if stroke is not None:
        ops.append(_colour_op(stroke, "RG"))
        ops.append(f"{_num(float(el.get('stroke-width', '1')))} w")
        dashes = el.get("stroke-dasharray")
        if dashes:
            ops.append("[" + " ".join(_num(float(v)) for v in _NUMBER.findall(dashes)) + "] 0 d")
    ops.append(outline)
    ops.append("B" if fill is not None and stroke is not None else "f" if fill else "S")
    ops.append("Q")
    return "\n".join(ops)


# Text ------------------------------------------------------------------------------------


def _font(el: ET.Element) -> tuple[str, str]:
    """(family, base font) for a text element's font-family and font-weight."""
    families = [f.strip().strip("'\"").lower() for f in el.get("font-family", "Times").split(",")]
    family = FAMILY_OF.get(families[0], "Times") if families else "Times"
    bold = el.get("font-weight", "normal") in ("bold", "bolder", "600", "700", "800", "900")
    return family, FONTS[(family, bold)]


def _pdf_string(text: str) -> str:
    data = text.encode("cp1252", errors="replace")  # WinAnsiEncoding; other glyphs become ?
    escaped = data.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
    return "(" + escaped.decode("latin-1") + ")"


def _text(el: ET.Element, fonts: dict[str, str]) -> str:
    content = "".join(el.itertext())
    if not content.strip():
        return ""
    family, base = _font(el)
    resource = fonts.setdefault(base, f"F{len(fonts) + 1}")
    size = float(el.get("font-size", "14"))
    x, y = float(el.get("x", "0")), float(el.get("y", "0"))
    width = len(content) * size * AVERAGE_WIDTH[family]
    anchor = el.get("text-anchor", "start")
    x -= width / 2 if anchor == "middle" else width if anchor == "end" else 0.0
    colour = _rgb(el.get("fill", "black")) or (0.0, 0.0, 0.0)
    # The page is flipped (SVG's y runs down), so the text matrix flips glyphs back upright.
    return (
        f"BT\n{_colour_op(colour, 'rg')}\n/{resource} 1 Tf\n"
        f"{_num(size)} 0 0 {_num(-size)} {_num(x)} {_num(y)} Tm\n"
        f"{_pdf_string(content)} Tj\nET"
    )


# The document ----------------------------------------------------------------------------


def _content(root: ET.Element, fonts: dict[str, str]) -> Iterator[str]:
    """PDF operators for every drawn element, in document order (an explicit stack)."""
    stack: list[tuple[ET.Element, bool]] = [(child, False) for child in reversed(list(root))]
    while stack:
        el, closing = stack.pop()
        if closing:
            yield "Q"
            continue
        tag = _tag(el)
        if tag in ("g", "a", "svg"):
            m = _matrix(el.get("transform", ""))
            identity = m == [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
            yield "q" if identity else "q\n" + " ".join(_num(v) for v in m) + " cm"
            stack.append((el, True))
            stack.extend((child, False) for child in reversed(list(el)))
        elif tag == "polygon":
            yield _paint(el, _polygon(_points(el.get("points", "")), True), fill_default="black")
        elif tag == "polyline":
            yield _paint(el, _polygon(_points(el.get("points", "")), False), fill_default="none")
        elif tag == "path":
            yield _paint(el, _path(el.get("d", "")), fill_default="black")
        elif tag == "ellipse":
            cx, cy = float(el.get("cx", "0")), float(el.get("cy", "0"))
            rx, ry = float(el.get("rx", "0")), float(el.get("ry", "0"))
            yield _paint(el, _ellipse(cx, cy, rx, ry), fill_default="black")
        elif tag == "text":
            yield _text(el, fonts)
        elif tag in ("title", "desc", "defs", "metadata"):
            continue
        else:
            raise PdfError(f"unsupported svg element <{tag}>")


def svg_to_pdf(svg: bytes) -> bytes:
    """A one-page vector PDF of graphviz's `svg`, byte-stable (no dates, no compression)."""
    import xml.etree.ElementTree as ET

    try:
        root = ET.fromstring(svg)
    except ET.ParseError as e:
        raise PdfError(f"unreadable svg: {e}") from e
    width, height = _length(root.get("width")), _length(root.get("height"))
    box = [float(v) for v in _NUMBER.findall(root.get("viewBox", ""))] or [0, 0, width, height]
    vx, vy, vw, vh = box
    sx, sy = (width / vw if vw else 1.0), (height / vh if vh else 1.0)
    fonts: dict[str, str] = {}
    body = "\n".join(op for op in _content(root, fonts) if op)
    # PDF's y runs up from the bottom: flip once, then map the viewBox onto the page.
    fit = [sx, 0.0, 0.0, sy, -vx * sx, -vy * sy]
    page = f"1 0 0 -1 0 {_num(height)} cm\n" + " ".join(_num(v) for v in fit) + " cm\n"
    stream = (page + body + "\n").encode("latin-1")
    font_ids = {base: 6 + i for i, base in enumerate(fonts)}
    resources = " ".join(f"/{res} {font_ids[base]} 0 R" for base, res in fonts.items())
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {_num(width)} {_num(height)}] "
            f"/Resources << /Font << {resources} >> >> /Contents 4 0 R >>"
        ).encode(),
        f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"endstream",
        b"<< /Producer (detachviz) >>",
    ]
    objects += [
        f"<< /Type /Font /Subtype /Type1 /BaseFont /{base} /Encoding /WinAnsiEncoding >>".encode()
        for base in fonts
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info 5 0 R >>\n"
        f"startxref\n{xref}\n%%EOF\n"
    ).encode()
    return bytes(out)


def fixed_dates(pdf: bytes) -> bytes:
    """A pdf with its CreationDate/ModDate set to one fixed date (system dot's cairo writes
    the time of the run, so the same graph never gave the same bytes). The replacement keeps
    each string's length, so the cross-reference offsets stay right."""

    def fix(m: re.Match[bytes]) -> bytes:
        old = m.group(2)
        new = FIXED_DATE[: len(old)].ljust(len(old), b" ")
        return b"/" + m.group(1) + b" (" + new + b")"

    return _DATE.sub(fix, pdf)


# SVG's colour keywords (CSS Color Module Level 3), which graphviz writes by name.
SVG_COLOURS = {
    "aliceblue": "#f0f8ff", "antiquewhite": "#faebd7", "aqua": "#00ffff",
    "aquamarine": "#7fffd4", "azure": "#f0ffff", "beige": "#f5f5dc", "bisque": "#ffe4c4",
    "black": "#000000", "blanchedalmond": "#ffebcd", "blue": "#0000ff",
    "blueviolet": "#8a2be2", "brown": "#a52a2a", "burlywood": "#deb887",
    "cadetblue": "#5f9ea0", "chartreuse": "#7fff00", "chocolate": "#d2691e",
    "coral": "#ff7f50", "cornflowerblue": "#6495ed", "cornsilk": "#fff8dc",
    "crimson": "#dc143c", "cyan": "#00ffff", "darkblue": "#00008b", "darkcyan": "#008b8b",
    "darkgoldenrod": "#b8860b", "darkgray": "#a9a9a9", "darkgreen": "#006400",
    "darkgrey": "#a9a9a9", "darkkhaki": "#bdb76b", "darkmagenta": "#8b008b",
    "darkolivegreen": "#556b2f", "darkorange": "#ff8c00", "darkorchid": "#9932cc",
    "darkred": "#8b0000", "darksalmon": "#e9967a", "darkseagreen": "#8fbc8f",
    "darkslateblue": "#483d8b", "darkslategray": "#2f4f4f", "darkslategrey": "#2f4f4f",
    "darkturquoise": "#00ced1", "darkviolet": "#9400d3", "deeppink": "#ff1493",
    "deepskyblue": "#00bfff", "dimgray": "#696969", "dimgrey": "#696969",
    "dodgerblue": "#1e90ff", "firebrick": "#b22222", "floralwhite": "#fffaf0",
    "forestgreen": "#228b22", "fuchsia": "#ff00ff", "gainsboro": "#dcdcdc",
    "ghostwhite": "#f8f8ff", "gold": "#ffd700", "goldenrod": "#daa520", "gray": "#808080",
    "grey": "#808080", "green": "#008000", "greenyellow": "#adff2f", "honeydew": "#f0fff0",
    "hotpink": "#ff69b4", "indianred": "#cd5c5c", "indigo": "#4b0082", "ivory": "#fffff0",
    "khaki": "#f0e68c", "lavender": "#e6e6fa", "lavenderblush": "#fff0f5",
    "lawngreen": "#7cfc00", "lemonchiffon": "#fffacd", "lightblue": "#add8e6",
    "lightcoral": "#f08080", "lightcyan": "#e0ffff", "lightgoldenrodyellow": "#fafad2",
    "lightgray": "#d3d3d3", "lightgreen": "#90ee90", "lightgrey": "#d3d3d3",
    "lightpink": "#ffb6c1", "lightsalmon": "#ffa07a", "lightseagreen": "#20b2aa",
    "lightskyblue": "#87cefa", "lightslategray": "#778899", "lightslategrey": "#778899",
    "lightsteelblue": "#b0c4de", "lightyellow": "#ffffe0", "lime": "#00ff00",
    "limegreen": "#32cd32", "linen": "#faf0e6", "magenta": "#ff00ff", "maroon": "#800000",
    "mediumaquamarine": "#66cdaa", "mediumblue": "#0000cd", "mediumorchid": "#ba55d3",
    "mediumpurple": "#9370db", "mediumseagreen": "#3cb371", "mediumslateblue": "#7b68ee",
    "mediumspringgreen": "#00fa9a", "mediumturquoise": "#48d1cc",
    "mediumvioletred": "#c71585", "midnightblue": "#191970", "mintcream": "#f5fffa",
    "mistyrose": "#ffe4e1", "moccasin": "#ffe4b5", "navajowhite": "#ffdead",
    "navy": "#000080", "oldlace": "#fdf5e6", "olive": "#808000", "olivedrab": "#6b8e23",
    "orange": "#ffa500", "orangered": "#ff4500", "orchid": "#da70d6",
    "palegoldenrod": "#eee8aa", "palegreen": "#98fb98", "paleturquoise": "#afeeee",
    "palevioletred": "#db7093", "papayawhip": "#ffefd5", "peachpuff": "#ffdab9",
    "peru": "#cd853f", "pink": "#ffc0cb", "plum": "#dda0dd", "powderblue": "#b0e0e6",
    "purple": "#800080", "red": "#ff0000", "rosybrown": "#bc8f8f", "royalblue": "#4169e1",
    "saddlebrown": "#8b4513", "salmon": "#fa8072", "sandybrown": "#f4a460",
    "seagreen": "#2e8b57", "seashell": "#fff5ee", "sienna": "#a0522d", "silver": "#c0c0c0",
    "skyblue": "#87ceeb", "slateblue": "#6a5acd", "slategray": "#708090",
    "slategrey": "#708090", "snow": "#fffafa", "springgreen": "#00ff7f",
    "steelblue": "#4682b4", "tan": "#d2b48c", "teal": "#008080", "thistle": "#d8bfd8",
    "tomato": "#ff6347", "turquoise": "#40e0d0", "violet": "#ee82ee", "wheat": "#f5deb3",
    "white": "#ffffff", "whitesmoke": "#f5f5f5", "yellow": "#ffff00",
    "yellowgreen": "#9acd32",
}  # fmt: skip
