"""torchviz tutorial code with graphviz's defaults on a machine without system Graphviz:
`make_dot(y).render("g")`, `.pipe()` and `.view()` default to pdf, and `view=True` has no
display to show it on. Each must work, or say in one line why it cannot show the file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from detachviz.render.rendering import show

HAS_DOT = shutil.which("dot") is not None

TUTORIAL = textwrap.dedent(
    """\
    import torch
    from torchviz import make_dot

    x = torch.ones(3, requires_grad=True)
    y = (x.detach() * 2 + x).sum()
    g = make_dot(y)
    print(g.format, g.render("g"))
    print(g.pipe()[:8])
    g.view()
    print(g.render("shown", view=True))
    """
)


def run_without_graphviz(tmp_path: Path, script: str, *, display: str | None = None):
    path = tmp_path / "tutorial.py"
    path.write_text(script)
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    # No system dot, no xdg-open: graphviz-pure is found beside the running Python.
    env["PATH"] = str(tmp_path / "empty")
    if display is not None:
        env["DISPLAY"] = display
    return subprocess.run(
        [sys.executable, "-m", "detachviz", "run", str(path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_tutorial_defaults_write_pdf_without_system_graphviz(tmp_path: Path) -> None:
    proc = run_without_graphviz(tmp_path, TUTORIAL)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["pdf g.pdf", "b'%PDF-1.4'", "shown.pdf"]
    # graphviz writes the DOT source beside the drawing.
    assert (tmp_path / "g").read_text().startswith("digraph {")
    pdf = (tmp_path / "g.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-1.4") and b"(cut: detach\\(\\)) Tj" in pdf
    assert (tmp_path / "shown.pdf").read_bytes() == pdf
    # .view() and view=True: one line each on stderr, no traceback, the script goes on.
    assert proc.stderr.splitlines() == [
        "detachviz: wrote g.pdf but cannot show it: no display (DISPLAY is not set)",
        "detachviz: wrote shown.pdf but cannot show it: no display (DISPLAY is not set)",
    ]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="xdg-open is Linux's viewer")
def test_view_with_a_display_but_no_viewer_is_one_line(tmp_path: Path) -> None:
    script = "x = torch.ones(2, requires_grad=True)\nmake_dot(x * 2).render('g', view=True)\n"
    proc = run_without_graphviz(tmp_path, script, display=":99")
    assert proc.returncode == 0
    [line] = proc.stderr.splitlines()
    assert line.startswith("detachviz: wrote g.pdf but cannot show it: no viewer (")
    assert (tmp_path / "g.pdf").read_bytes().startswith(b"%PDF")


def test_show_opens_when_it_can_and_explains_when_it_cannot(
    capsys: pytest.CaptureFixture[str],
) -> None:
    opened: list[str] = []
    assert show("g.pdf", lambda: opened.append("g.pdf"), env={"DISPLAY": ":0"}) is True
    assert opened == ["g.pdf"] and capsys.readouterr().err == ""

    def missing() -> None:
        raise FileNotFoundError(2, "No such file or directory", "xdg-open")

    assert show("g.pdf", missing, env={"DISPLAY": ":0"}) is False
    assert capsys.readouterr().err == (
        "detachviz: wrote g.pdf but cannot show it: no viewer (No such file or directory)\n"
    )


def test_api_make_dot_pipe_defaults_to_pdf() -> None:
    import detachviz.torch as torch
    from detachviz.torchviz import make_dot

    x = torch.ones(2, requires_grad=True)
    g = make_dot((x * x).sum())
    assert g.format == "pdf"
    assert g.pipe().startswith(b"%PDF-1.4")
    assert g.pipe() == g.pipe()  # byte-stable


@pytest.mark.skipif(not HAS_DOT, reason="system Graphviz not installed")
def test_renderer_dot_pdf_check_is_not_stale(tmp_path: Path) -> None:
    import time

    script = tmp_path / "s.py"
    script.write_text("x = torch.ones(2, requires_grad=True)\ny = (x.detach() * x).sum()\n")
    args = [sys.executable, "-m", "detachviz", "render", str(script), "-f", "pdf"]
    first = subprocess.run([*args, "--renderer", "dot"], capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    time.sleep(1.1)  # cairo dates its pdf to the second
    check = subprocess.run([*args, "--renderer", "dot", "--check"], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
