"""pdf without system Graphviz: graphviz-pure's svg translated to PDF operators (render/pdf.py),
byte-stable, readable by a real PDF reader (poppler's pdftoppm, where installed); and system
dot's pdf made byte-stable by fixing its dates."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import render_samples as samples
from png_pixels import colour_count, decode_png

from detachviz.render import RenderError, draw
from detachviz.render.backend import render_source
from detachviz.render.options import DrawOptions
from detachviz.render.pdf import PdfError, fixed_dates, svg_to_pdf

HAS_DOT = shutil.which("dot") is not None
PDFTOPPM = shutil.which("pdftoppm")

SVG = """<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg width="100pt" height="50pt" viewBox="0.00 0.00 100.00 50.00" xmlns="http://www.w3.org/2000/svg">
<g id="graph0" class="graph" transform="scale(1 1) rotate(0) translate(4 46)">
<title>%3</title>
<polygon fill="lightblue" stroke="red" stroke-dasharray="5,2" points="0,0 10,0 10,-10 0,0"/>
<path fill="none" stroke="#ff0000" stroke-width="1.5" d="M1,2C3,4 5,6 7,8"/>
<ellipse fill="none" stroke="black" cx="20" cy="-20" rx="2" ry="1"/>
<text text-anchor="middle" x="50" y="-7" font-family="Courier,monospace"
 font-size="10.00">a(b)\\ ×</text>
</g>
</svg>
"""


def content(pdf: bytes) -> str:
    return pdf.split(b"stream\n", 1)[1].split(b"endstream", 1)[0].decode("latin-1")


def test_each_svg_element_becomes_its_pdf_operators() -> None:
    ops = content(svg_to_pdf(SVG.encode()))
    # y flipped once for the page, then the graph group's translate.
    assert ops.startswith("1 0 0 -1 0 50 cm\n1 0 0 1 0 0 cm\nq\n1 0 0 1 4 46 cm\n")
    # lightblue fill, red dashed outline: a filled and stroked closed path.
    assert (
        "0.678 0.847 0.902 rg\n1 0 0 RG\n1 w\n[5 2] 0 d\n0 0 m\n10 0 l\n10 -10 l\n0 0 l\nh\nB"
        in ops
    )
    assert "1 0 0 RG\n1.5 w\n1 2 m\n3 4 5 6 7 8 c\nS" in ops  # fill="none": stroke only
    assert "22 -20 m\n22 -19.448 21.105 -19 20 -19 c" in ops  # four Béziers, from (cx+rx, cy)
    # Courier glyphs are 0.6 em: 7 characters at 10pt centred on x=50 start at 50 - 21.
    assert "/F1 1 Tf\n10 0 0 -10 29 -7 Tm\n(a\\(b\\)\\\\ \xd7) Tj" in ops


def test_fonts_are_standard_14_and_nothing_is_dated() -> None:
    pdf = svg_to_pdf(SVG.encode())
    assert b"/BaseFont /Courier /Encoding /WinAnsiEncoding" in pdf
    assert b"/FontFile" not in pdf  # nothing embedded
    assert b"Date" not in pdf and b"/Filter" not in pdf  # no dates, no compression
    assert b"/MediaBox [0 0 100 50]" in pdf


def test_cross_reference_offsets_point_at_their_objects() -> None:
    pdf = draw(samples.all_cuts(), fmt="pdf")
    xref = int(re.search(rb"startxref\n(\d+)\n%%EOF\n$", pdf).group(1))
    assert pdf[xref:].startswith(b"xref\n0 ")
    offsets = [int(o) for o in re.findall(rb"(\d{10}) 00000 n ", pdf[xref:])]
    assert len(offsets) >= 6
    for number, at in enumerate(offsets, start=1):
        assert pdf[at:].startswith(f"{number} 0 obj\n".encode())
    length = int(re.search(rb"/Length (\d+) >>\nstream\n", pdf).group(1))
    start = pdf.index(b"stream\n") + len(b"stream\n")
    assert pdf[start + length :].startswith(b"endstream")


def test_same_graph_same_bytes() -> None:
    graph = samples.rnn(6)
    assert draw(graph, fmt="pdf") == draw(graph, fmt="pdf")


@pytest.mark.parametrize(
    ("svg", "message"),
    [
        (SVG.replace("<ellipse", "<circle"), "unsupported svg element <circle>"),
        (SVG.replace('d="M1,2C', 'd="M1,2Q'), "unsupported path command"),
        (SVG.replace('fill="lightblue"', 'fill="notacolour"'), "unknown colour 'notacolour'"),
        ("<svg", "unreadable svg"),
    ],
)
def test_what_it_cannot_translate_is_one_clear_error(svg: str, message: str) -> None:
    with pytest.raises(PdfError, match=re.escape(message)):
        svg_to_pdf(svg.encode())


def test_renderer_failure_is_a_render_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import detachviz.render.pdf as pdf_module

    def broken(_svg: bytes) -> bytes:
        raise PdfError("unsupported svg element <foreignObject>")

    monkeypatch.setattr(pdf_module, "svg_to_pdf", broken)
    with pytest.raises(RenderError) as e:
        render_source("digraph { a }", "pdf")
    assert str(e.value) == (
        "cannot write pdf from graphviz-pure's svg: unsupported svg element <foreignObject>"
    )


@pytest.mark.skipif(PDFTOPPM is None, reason="needs poppler-utils' pdftoppm (apt)")
def test_a_pdf_reader_draws_it_like_the_svg(tmp_path: Path) -> None:
    pdf = tmp_path / "cuts.pdf"
    pdf.write_bytes(draw(samples.all_cuts(), fmt="pdf"))
    proc = subprocess.run(
        [PDFTOPPM, "-png", "-r", "72", "-singlefile", str(pdf), str(tmp_path / "page")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0 and proc.stderr == ""
    width, height, rows = decode_png((tmp_path / "page.png").read_bytes())
    svg = draw(samples.all_cuts(), fmt="svg").decode()
    w, h = (
        round(float(v)) for v in re.search(r'width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups()
    )
    assert (width, height) == (w, h)  # 72 dpi: one pixel per point
    # Five red cut edges, the light-blue leaf, the green output, and black text.
    assert colour_count(rows, lambda r, g, b: r > 200 and g < 80 and b < 80) > 200
    assert colour_count(rows, lambda r, g, b: (r, g, b) == (0xAD, 0xD8, 0xE6)) > 300
    assert colour_count(rows, lambda r, g, b: (r, g, b) == (0xCA, 0xFF, 0x70)) > 300
    assert colour_count(rows, lambda r, g, b: r + g + b < 60) > 100


def test_fixed_dates_keeps_lengths_and_offsets() -> None:
    pdf = (
        b"%PDF-1.5\n1 0 obj\n<< /Producer (cairo) /CreationDate (D:20261201162914+00'00) "
        b"/ModDate (D:20261201162915Z) >>\nendobj\nxref\n"
    )
    fixed = fixed_dates(pdf)
    assert len(fixed) == len(pdf)
    assert b"(D:19700101000000Z     )" in fixed and b"/ModDate (D:19700101000000Z)" in fixed
    assert fixed_dates(fixed) == fixed


@pytest.mark.skipif(not HAS_DOT, reason="system Graphviz not installed")
def test_system_dot_pdf_is_byte_stable() -> None:
    import time

    first = draw(samples.detach(), fmt="pdf", options=DrawOptions(renderer="dot"))
    time.sleep(1.1)  # cairo writes the time of the run to the second
    assert draw(samples.detach(), fmt="pdf", options=DrawOptions(renderer="dot")) == first
