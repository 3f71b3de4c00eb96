"""The IPython extension: `%load_ext detachviz`, `%%detachviz`, `%detachviz_grad`.

Most tests drive a real in-process IPython shell; one executes a real notebook with
`jupyter nbconvert --execute` in a fresh kernel, as a user's notebook runs.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from detachviz import api
from detachviz.engine.tensor import Tensor as EngineTensor

ROOT = Path(__file__).resolve().parents[1]

DETACHED = """\
a = torch.ones(5, requires_grad=True)
b = a**3
c = a.detach() ** 6
i = (b + c).sum()
i.backward()
"""

CHAIN = """\
w = torch.ones(2, requires_grad=True)
h = w * 1.0
for _ in range(5):
    h = h * w
loss = h.sum()
"""


def test_expand_node_size_and_dpi_options(ip, tmp_path) -> None:
    result, out = run(ip, "%%detachviz\n" + CHAIN)
    [collapsed] = svgs(out)
    assert "MulBackward0 ×6" in collapsed
    target = tmp_path / "g.dot"
    result, out = run(ip, f"%%detachviz --expand-node 5 --size 3,2 -o {target}\n" + CHAIN)
    assert result.success
    [full] = svgs(out)  # line 5 (the cell's own numbering) names the collapsed box
    assert full.count("MulBackward0</text>") == 6 and "×" not in full
    assert 'size="3,2"' in target.read_text()


@pytest.fixture
def ip():
    shell = InteractiveShell.instance()
    shell.run_cell("%load_ext detachviz")
    shell.run_line_magic("colors", "NoColor")
    yield shell
    shell.run_cell("%reset -f")
    InteractiveShell.clear_instance()


def run(ip, cell: str):
    with capture_output() as out:
        result = ip.run_cell(cell)
    return result, out


def svgs(out) -> list[str]:
    return [o.data["image/svg+xml"] for o in out.outputs if "image/svg+xml" in o.data]


def test_cell_runs_on_the_engine_and_shows_its_graph(ip) -> None:
    result, out = run(ip, "%%detachviz\n" + DETACHED)
    assert result.success, result.error_in_exec
    [svg] = svgs(out)
    assert "cut: detach()" in svg and "line 4" in svg  # as the notebook numbers the cell
    assert ">a</text>" in svg and ">i</text>" in svg and ">c = pow</text>" in svg
    a = ip.user_ns["a"]  # the cell's results stay in the notebook
    assert isinstance(a, EngineTensor) and type(a).__module__ == "torch"  # as torch names it
    assert a.grad.tolist() == [3.0] * 5


def test_bindings_are_the_engines_for_the_cell_and_the_users_after(ip) -> None:
    ip.user_ns["F"] = "my F"
    cell = "%%detachviz\nimport torch\nnames = torch.__name__, F.__name__, nn.__name__"
    result, _ = run(ip, cell)
    assert result.success
    assert ip.user_ns["names"] == ("detachviz.torch", "detachviz.nn.functional", "detachviz.nn")
    assert ip.user_ns["F"] == "my F"
    assert "torch" not in ip.user_ns and "nn" not in ip.user_ns
    assert "torch" not in sys.modules or sys.modules["torch"].__name__ == "torch"


def test_the_last_expression_is_displayed_like_a_cell(ip) -> None:
    result, out = run(ip, "%%detachviz --no-graph\nw = torch.ones(2, requires_grad=True)\nw * 2")
    assert result.success
    assert [o.data["text/plain"] for o in out.outputs] == [
        "tensor([2., 2.], grad_fn=<MulBackward0>)"
    ]


def test_options_and_output_file(ip, tmp_path) -> None:
    target = tmp_path / "g.json"
    result, out = run(ip, f"%%detachviz --root b --rankdir LR -o {target}\n" + DETACHED)
    assert result.success
    assert target.read_text().startswith('{\n  "version": 1')
    [svg] = svgs(out)
    assert ">b</text>" in svg and ">i</text>" not in svg


def test_output_file_html_is_the_interactive_page_with_the_cells_details(ip, tmp_path) -> None:
    target = tmp_path / "g.html"
    result, _ = run(ip, f"%%detachviz -o {target}\n" + DETACHED)
    assert result.success
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page
    assert '["dtype","torch.float32"]' in page  # the details the html view's tooltips show


def test_grad_option_and_line_magic_show_the_report_table(ip) -> None:
    result, out = run(ip, "%%detachviz --grad\n" + DETACHED)
    assert result.success
    [table] = [o.data["text/html"] for o in out.outputs if "text/html" in o.data]
    assert "<code>a</code>" in table and "partly-cut" in table and "line 4" in table
    result, out = run(ip, "%detachviz_grad")
    assert result.result.row("a")["status"] == "partly-cut"
    assert result.result.to_dict() == api.LAST.explain().to_dict()


def test_a_failing_cell_draws_up_to_the_failure_then_raises(ip) -> None:
    cell = "%%detachviz\nm = torch.arange(5.0, requires_grad=True)\nn = m**2\n"
    cell += "m.detach().zero_()\nn.sum().backward()\n"
    result, out = run(ip, cell)
    assert isinstance(result.error_in_exec, RuntimeError)
    [svg] = svgs(out)
    assert "backward will raise" in svg
    assert api.LAST is not None and api.LAST.error_line == 5  # the backward() line
    assert "n" in ip.user_ns  # what ran before the failure is kept


def test_allow_errors_shows_the_traceback_without_failing(ip) -> None:
    cell = "%%detachviz --allow-errors\ny = torch.ones(2, requires_grad=True) * 2\n1/0"
    result, out = run(ip, cell)
    assert result.success
    shown = out.stdout + out.stderr
    assert "ZeroDivisionError" in shown and "line 3" in shown and "----> 3 1/0" in shown
    assert "detachviz/notebook.py" not in shown
    assert len(svgs(out)) == 1


@pytest.mark.parametrize(
    ("magic", "says"),
    [
        ("%%detachviz --rankdir XX\nx = 1", "invalid choice: 'XX'"),
        ("%%detachviz --root nope\nx = torch.ones(1, requires_grad=True) * 2", "'nope'"),
        ("%%detachviz -o g.bmp\nx = torch.ones(1, requires_grad=True) * 2", "'bmp'"),
        ("%%detachviz --dpi 0\n" + "x = torch.ones(1, requires_grad=True) * 2", "bad dpi 0"),
        ("%%detachviz --size big\nx = torch.ones(1, requires_grad=True) * 2", "bad size 'big'"),
        ("%%detachviz --expand-node nope\n" + "CHAIN", "--expand-node 'nope' names no"),
    ],
)
def test_bad_requests_are_one_line_usage_errors(ip, magic, says) -> None:
    result, out = run(ip, magic.replace("CHAIN", CHAIN))
    assert "UsageError" in out.stderr and says in out.stderr
    assert "Traceback" not in out.stdout + out.stderr


def test_a_cell_with_nothing_to_draw_says_so(ip) -> None:
    result, out = run(ip, "%%detachviz\nx = torch.ones(2)")
    assert result.success and svgs(out) == []
    assert out.stderr.startswith("detachviz: no tensor to draw")


def _notebook(path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext detachviz"),
        nbformat.v4.new_code_cell("%%detachviz\n" + DETACHED),
        nbformat.v4.new_code_cell("%detachviz_grad"),
        nbformat.v4.new_code_cell(
            "import detachviz\nimport detachviz.torch as T\n"
            "with detachviz.trace() as t:\n"
            "    w = T.ones(3, requires_grad=True)\n"
            "    frozen = (w * 2).data\n"
            "    loss = (w * frozen).sum()\n"
            "t.draw(loss)"
        ),
        nbformat.v4.new_code_cell("%%detachviz --expand-node h --dpi 144 -o chain.png\n" + CHAIN),
    ]
    nbformat.write(nb, path)


def test_nbconvert_executes_a_notebook_and_its_outputs_hold_the_graph(tmp_path) -> None:
    source, executed = tmp_path / "n.ipynb", tmp_path / "out.ipynb"
    _notebook(source)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute"]
    cmd += ["--ExecutePreprocessor.timeout=300", str(source), "--output", str(executed)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    cells = nbformat.read(executed, as_version=4).cells
    outputs = [[o for o in c.get("outputs", [])] for c in cells]
    assert all(o["output_type"] != "error" for os_ in outputs for o in os_)
    [cell_svg] = [o["data"]["image/svg+xml"] for o in outputs[1] if "data" in o]
    assert "cut: detach()" in cell_svg and "line 4" in cell_svg
    assert ">a</text>" in cell_svg and ">i</text>" in cell_svg
    [table] = [o["data"]["text/html"] for o in outputs[2]]
    assert "<code>a</code>" in table and "partly-cut" in table
    [api_svg] = [o["data"]["image/svg+xml"] for o in outputs[3]]
    assert "cut: .data" in api_svg and ">w</text>" in api_svg and ">loss</text>" in api_svg
    [chain_svg] = [o["data"]["image/svg+xml"] for o in outputs[4] if "data" in o]
    assert chain_svg.count("MulBackward0</text>") == 6 and "×" not in chain_svg  # expanded
    width_pt = float(re.search(r'<svg width="([\d.]+)pt"', chain_svg).group(1))
    png = (tmp_path / "chain.png").read_bytes()  # -o, beside the notebook, at 144 dpi
    assert int.from_bytes(png[16:20], "big") == pytest.approx(width_pt * 144 / 72, abs=3)


def test_the_worked_notebook_is_current(tmp_path) -> None:
    """docs/notebooks/detach.ipynb, executed again, has exactly its committed outputs (run
    `python docs/notebooks/refresh.py` after changing what detachviz draws)."""
    spec = importlib.util.spec_from_file_location("refresh", ROOT / "docs/notebooks/refresh.py")
    assert spec is not None and spec.loader is not None
    refresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(refresh)
    [committed] = refresh.NOTEBOOKS
    executed = tmp_path / committed.name
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = refresh.execute_command(committed, executed)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    old = nbformat.read(committed, as_version=4).cells
    new = nbformat.read(executed, as_version=4).cells
    assert [c.get("outputs") for c in new] == [c.get("outputs") for c in old]
    svg = "".join(
        o["data"]["image/svg+xml"]
        for c in new
        for o in c.get("outputs", [])
        if "data" in o and "image/svg+xml" in o["data"]
    )
    for text in ("cut: detach()", "cut: .data", "backward will raise", ">A.weight</text>"):
        assert text in svg
    images = refresh.tagged_images(executed)
    assert sorted(images) == ["notebook_detached.svg", "notebook_inplace_error.svg"]
    for name, drawn in images.items():
        assert (refresh.IMAGES / name).read_text(encoding="utf-8") == drawn, name


def test_make_dot_in_a_cell_is_detachvizs_with_cuts_and_names(ip) -> None:
    cell = "%%detachviz --no-graph\nfrom torchviz import make_dot\n"
    cell += "w = torch.ones(2, requires_grad=True)\nv = w.detach() * w\ndot = make_dot(v).source"
    result, _ = run(ip, cell)
    assert result.success, result.error_in_exec
    dot = ip.user_ns["dot"]
    assert "cut: detach()" in dot and "line 4" in dot and r'label="w\n (2)"' in dot


def test_a_syntax_error_names_the_line_the_notebook_shows(ip) -> None:
    result, out = run(ip, "%%detachviz\nx = torch.ones(2)\ny = (x +\n")
    assert isinstance(result.error_in_exec, SyntaxError)
    assert result.error_in_exec.lineno == 3
    assert "no tensor to draw" not in out.stderr


def test_a_trace_inside_a_cell_shares_the_cells_recording(ip) -> None:
    cell = "%%detachviz\nimport detachviz\nw = torch.ones(2, requires_grad=True)\n"
    cell += "with detachviz.trace() as t:\n    v = (w.detach() * w).sum()\ninner = t.draw(v).graph"
    result, out = run(ip, cell)
    assert result.success, result.error_in_exec
    [svg] = svgs(out)
    assert "cut: detach()" in svg and "line 5" in svg  # the cell's own drawing saw the cut
    assert [(e.cut, e.line) for e in ip.user_ns["inner"].edges if e.cut] == [("detach", 5)]
