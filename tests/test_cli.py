"""The command line through click's CliRunner: exit codes, stderr wording, files, stdout."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from detachviz.cli import cli

SEED = """
a = torch.ones(5, requires_grad=True)
b = a**3
c = a.detach()**6
i = (b + c).sum()
print("printed by the script")
"""


@pytest.fixture
def runner():
    return CliRunner()


def invoke(runner, *args):
    return runner.invoke(cli, list(args), catch_exceptions=False)


def test_run_prints_only_the_scripts_stdout(runner, script):
    path = script("import sys\nprint('hi', sys.argv[1:])\nprint(torch.ones(2) * 2)\n")
    result = invoke(runner, "run", str(path), "x", "--flag")
    assert result.exit_code == 0
    assert result.stdout == "hi ['x', '--flag']\ntensor([2., 2.])\n"


def test_run_script_error_is_a_trimmed_traceback_and_exit_1(runner, script):
    path = script(
        "a = torch.ones(2)\nb = a.numpy()\nc = torch.ones(2, requires_grad=True)\nc.numpy()\n"
    )
    result = invoke(runner, "run", str(path))
    assert result.exit_code == 1
    assert "line 4, in <module>" in result.stderr
    assert result.stderr.rstrip().endswith(
        "RuntimeError: Can't call numpy() on Tensor that requires grad. "
        "Use tensor.detach().numpy() instead."
    )
    assert "detachviz/" not in result.stderr  # no frames from our own code


def test_run_syntax_error_names_file_and_line(runner, script):
    result = invoke(runner, "run", str(script("x = (1,\ny = 2\n", name="bad.py")))
    assert result.exit_code == 1
    assert 'bad.py", line 1' in result.stderr and "SyntaxError" in result.stderr


def test_run_unsupported_torch_module_is_named(runner, script):
    result = invoke(runner, "run", str(script("import torch.fft\n")))
    assert result.exit_code == 1
    assert "torch.fft is not supported by detachviz" in result.stderr


def test_run_system_exit_code_is_kept(runner, script):
    assert invoke(runner, "run", str(script("raise SystemExit(7)\n"))).exit_code == 7


@pytest.mark.parametrize("command", ["run", "render", "grad"])
def test_missing_script_is_a_usage_error(runner, tmp_path, command):
    result = invoke(runner, command, str(tmp_path / "nope.py"))
    assert result.exit_code == 2
    assert "no such script" in result.stderr and "Traceback" not in result.stderr


def test_render_writes_svg_next_to_the_script_and_skips_unchanged(runner, script):
    path = script(SEED, name="seed.py")
    first = invoke(runner, "render", str(path))
    assert first.exit_code == 0 and first.stdout == ""
    svg = path.with_suffix(".svg")
    assert svg.read_bytes().startswith(b"<?xml") and b"detach()" in svg.read_bytes()
    mtime = svg.stat().st_mtime_ns
    second = invoke(runner, "render", str(path))
    assert second.exit_code == 0 and "unchanged" in second.stderr
    assert svg.stat().st_mtime_ns == mtime


@pytest.mark.parametrize(
    ("fmt", "magic"),
    [("png", b"\x89PNG"), ("jpg", b"\xff\xd8"), ("dot", b"digraph"), ("svg", b"<?xml")],
)
def test_render_to_stdout_is_pure(runner, script, fmt, magic):
    result = invoke(runner, "render", str(script(SEED)), "-o", "-", "-f", fmt)
    assert result.exit_code == 0
    assert result.stdout_bytes.startswith(magic)
    assert b"printed by the script" not in result.stdout_bytes


def test_render_json_is_the_model(runner, script):
    result = invoke(runner, "render", str(script(SEED)), "-o", "-", "-f", "json")
    data = json.loads(result.stdout)
    assert {n["kind"] for n in data["nodes"]} == {"output", "function", "leaf", "untracked"}
    (cut,) = [e for e in data["edges"] if e["cut"]]
    assert (cut["cut"], cut["line"]) == ("detach", 3)


def test_format_from_output_suffix(runner, script, tmp_path):
    out = tmp_path / "graph.png"
    assert invoke(runner, "render", str(script(SEED)), "-o", str(out)).exit_code == 0
    assert out.read_bytes().startswith(b"\x89PNG")


def test_failing_script_writes_no_image_unless_allowed(runner, script, tmp_path):
    path = script(
        "a = torch.ones(2, requires_grad=True)\nb = (a * 2).sum()\nraise ValueError('boom')\n"
    )
    out = tmp_path / "g.dot"
    out.write_text("the image of the last good run")
    result = invoke(runner, "render", str(path), "-f", "dot", "-o", str(out))
    assert result.exit_code == 1
    assert "script failed at line 3: ValueError: boom" in result.stderr
    assert "no image written: --allow-errors draws the graph" in result.stderr
    assert out.read_text() == "the image of the last good run"
    allowed = invoke(runner, "render", str(path), "-f", "dot", "-o", str(out), "--allow-errors")
    assert allowed.exit_code == 0
    assert "(graph drawn up to the failure)" in allowed.stderr
    assert "script failed here" in out.read_text()


def test_failed_render_leaves_existing_image_intact(runner, script, tmp_path):
    out = tmp_path / "keep.svg"
    out.write_bytes(b"old image")
    path = script("x = 1\n")  # no tensor to draw
    result = invoke(runner, "render", str(path), "-o", str(out))
    assert result.exit_code == 1
    assert "no tensor to draw" in result.stderr
    assert out.read_bytes() == b"old image"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".keep")) == []


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["-f", "gif"], 2, "unknown format 'gif'"),
        (["--root", "nope"], 1, "--root 'nope' names no tensor"),
        (["--rankdir", "XY"], 2, "unknown --rankdir"),
        (["--size", "8x10"], 2, "bad size '8x10': give inches as WIDTH,HEIGHT"),
        (["--dpi", "0"], 2, "Invalid value for '--dpi'"),
        (["--dpi", "many"], 2, "Invalid value for '--dpi'"),
        (["--expand-node", ""], 2, "--expand-node needs a name"),
        (["--expand-node", "nope"], 1, "--expand-node 'nope' names no collapsed box"),
    ],
)
def test_bad_render_options(runner, script, args, code, message):
    result = invoke(runner, "render", str(script(SEED)), *args)
    assert result.exit_code == code
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_unreadable_png_is_refused_with_what_to_do(runner, script, tmp_path):
    # 300 exps drawn in full would be ~240 inches tall: at the 8,000 px cap, text ~3 px.
    body = "x = torch.ones(1, requires_grad=True)\ny = x\nfor _ in range(300):\n    y = y.exp()\n"
    out = tmp_path / "chain.png"
    result = invoke(runner, "render", str(script(body)), "--expand", "-o", str(out))
    assert result.exit_code == 1
    assert "px tall (unreadable below 8): write -f svg or -f html instead" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not out.exists()
    # collapsed (the default), the same loop is one readable box
    assert invoke(runner, "render", str(script(body)), "-o", str(out)).exit_code == 0


def test_unwritable_output_is_one_line(runner, script, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = invoke(runner, "render", str(script(SEED)), "-o", str(blocker / "g.svg"))
    assert result.exit_code == 1
    assert "cannot write" in result.stderr or "Not a directory" in result.stderr


def test_pdf_needs_no_system_dot(runner, script, monkeypatch):
    monkeypatch.setenv("PATH", "")
    result = invoke(runner, "render", str(script(SEED)), "-o", "-", "-f", "pdf")
    assert result.exit_code == 0, result.stderr
    assert result.stdout_bytes.startswith(b"%PDF-1.4")


def test_batch_goes_on_past_a_failure_and_check_reports_stale(runner, tmp_path, script):
    good = script(SEED, name="good.py")
    bad = script("x = 1\n", name="bad.py")
    out_dir = tmp_path / "img"
    result = invoke(runner, "render", str(bad), str(good), "--out-dir", str(out_dir), "-j", "2")
    assert result.exit_code == 1
    assert (out_dir / "good.svg").is_file() and not (out_dir / "bad.svg").exists()
    before = (out_dir / "good.svg").read_bytes()
    check = invoke(runner, "render", str(good), "--out-dir", str(out_dir), "--check")
    assert check.exit_code == 0
    good.write_text(SEED.replace("**6", "**5"))
    stale = invoke(runner, "render", str(good), "--out-dir", str(out_dir), "--check")
    assert stale.exit_code == 1 and "stale" in stale.stderr
    assert (out_dir / "good.svg").read_bytes() == before  # --check wrote nothing


def test_make_dot_in_a_script_writes_source_and_image(runner, script, tmp_path):
    path = script(SEED + 'make_dot(i).render("attached", format="jpg")\n')
    os.chdir(tmp_path)
    result = invoke(runner, "run", str(path))
    assert result.exit_code == 0
    assert (tmp_path / "attached").read_text().startswith("digraph")
    assert (tmp_path / "attached.jpg").read_bytes().startswith(b"\xff\xd8")
    assert "detach()" in (tmp_path / "attached").read_text()


def test_grad_table_and_json(runner, script):
    path = script(SEED)
    table = invoke(runner, "grad", str(path))
    assert table.exit_code == 0
    assert "detachviz called i.backward()" in table.stdout
    assert "partly-cut" in table.stdout and "line 3" in table.stdout
    data = json.loads(invoke(runner, "grad", str(path), "--json").stdout)
    assert data["root"] == "i" and data["leaves"][0]["name"] == "a"


def test_grad_without_scalar_root_is_one_line(runner, script):
    result = invoke(runner, "grad", str(script("a = torch.ones(2)\n")))
    assert result.exit_code == 1
    assert "no scalar tensor" in result.stderr and "Traceback" not in result.stderr


def test_bench_prints_a_table_and_writes_a_chart(runner, tmp_path):
    out = tmp_path / "bench.svg"
    result = invoke(
        runner, "bench", "--max-power", "1", "--repeat", "1", "--engine", "detachviz",
        "-o", str(out),
    )  # fmt: skip
    assert result.exit_code == 0
    for idiom in ("x.new_tensor(x)", "x.clone().detach()", "x.detach().clone()"):
        assert idiom in result.stdout
    assert out.read_bytes().startswith(b"<?xml") and b"len(x)" in out.read_bytes()


def test_bench_bad_argument_is_a_usage_error(runner, tmp_path):
    result = invoke(runner, "bench", "--max-power", "-1", "-o", str(tmp_path / "b.svg"))
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert not (tmp_path / "b.svg").exists()


def test_same_output_name_twice_is_refused(runner, tmp_path):
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "x.py").write_text(SEED)
    out_dir = tmp_path / "img"
    result = invoke(runner, "render", str(tmp_path / "a/x.py"), str(tmp_path / "b/x.py"),
                    "--out-dir", str(out_dir))  # fmt: skip
    assert result.exit_code == 2 and "would both write" in result.stderr
    assert not out_dir.exists()


def test_allow_errors_counts_a_failing_script_as_rendered(runner, script, tmp_path):
    path = script(
        "a = torch.ones(2, requires_grad=True)\nb = (a * 2).sum()\nraise ValueError('x')\n"
    )
    out = tmp_path / "e.svg"
    result = invoke(runner, "render", str(path), "-o", str(out), "--allow-errors")
    assert result.exit_code == 0 and out.is_file()
    assert "script failed at line 3" in result.stderr
    check = invoke(runner, "render", str(path), "-o", str(out), "--allow-errors", "--check")
    assert check.exit_code == 0


def test_fail_on_write_stops_once_then_passes(runner, script, tmp_path):
    path = script(SEED)
    out = tmp_path / "new.svg"
    first = invoke(runner, "render", str(path), "-o", str(out), "--fail-on-write")
    assert first.exit_code == 1 and out.is_file() and "add them to the commit" in first.stderr
    second = invoke(runner, "render", str(path), "-o", str(out), "--fail-on-write")
    assert second.exit_code == 0


def test_script_raising_before_any_tensor_names_its_error(runner, script):
    result = invoke(runner, "render", str(script("x = 1\nraise KeyError('k')\n")))
    assert result.exit_code == 1
    assert "script failed at line 2 before any tensor to draw: KeyError: 'k'" in result.stderr


def test_inplace_failure_marker_hangs_from_the_node_that_raised(runner, script):
    path = script("""
m = torch.arange(5., requires_grad=True)
n = m**2
o = m.detach()
o.zero_()
n.sum().backward()
""")
    result = invoke(runner, "render", str(path), "-o", "-", "-f", "json", "--allow-errors")
    data = json.loads(result.stdout)
    failed = next(n for n in data["nodes"] if n["id"] == data["error"]["node"])
    assert failed["label"] == "PowBackward0"
    assert data["error"]["line"] == 5
