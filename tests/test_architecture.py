"""The architecture's promises: every documented choice works end to end, the vocabulary
tables drive the CLI, errors map to exit codes in one place, `run` stays light, and a batch
in one process is byte-identical to one fresh process per script."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from detachviz.cli import cli, exit_code_for
from detachviz.errors import (
    BUG_HINT,
    OutputError,
    RenderError,
    RootError,
    ScriptFailed,
    ScriptNotFound,
    Terminated,
    UserError,
)
from detachviz.graph import vocab
from detachviz.render import options
from detachviz.render.options import DEFAULT_RENDERER, FORMATS, RANKDIR_NAMES, formats_for

SEED = """
a = torch.ones(5, requires_grad=True)
b = a**3
c = a.detach()**6
i = (b + c).sum()
"""

# What the first bytes of each format look like.
MAGIC = {
    "svg": b"<?xml",
    "png": b"\x89PNG",
    "jpg": b"\xff\xd8\xff",
    "pdf": b"%PDF",
    "dot": b"digraph",
    "json": b"{",
    "html": b"<!DOCTYPE html>",
}


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_every_format_has_its_magic_listed():
    assert sorted(MAGIC) == sorted(f.name for f in FORMATS)


@pytest.mark.parametrize("rankdir", RANKDIR_NAMES)
@pytest.mark.parametrize("fmt", formats_for(DEFAULT_RENDERER))
def test_every_rankdir_and_format_works_end_to_end(script, rankdir, fmt):
    path = script(SEED)
    out = path.with_name(f"g.{fmt}")
    result = invoke("render", str(path), "-o", str(out), "--rankdir", rankdir.lower())
    assert result.exit_code == 0, result.stderr
    data = out.read_bytes()
    assert data.startswith(MAGIC[fmt])
    if fmt == "dot":
        assert f"rankdir={rankdir}" in data.decode()
    if fmt == "json":
        assert {n["kind"] for n in json.loads(data)["nodes"]} <= set(vocab.KINDS)


@pytest.mark.parametrize("fmt", [f.name for f in FORMATS if DEFAULT_RENDERER in f.lacks], ids=str)
def test_a_format_the_default_renderer_lacks_is_one_clear_failure(script, fmt):
    result = invoke("render", str(script(SEED)), "-f", fmt)
    assert result.exit_code == 1
    assert f"{DEFAULT_RENDERER} cannot write {fmt}" in result.stderr
    assert "--renderer dot" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("alias", "name"), [(a, f.name) for f in FORMATS for a in f.aliases], ids=str
)
def test_format_aliases_write_their_format(script, alias, name):
    path = script(SEED)
    out = path.with_name("g.out")
    assert invoke("render", str(path), "-o", str(out), "-f", alias).exit_code == 0
    assert out.read_bytes().startswith(MAGIC[name])


def test_render_help_is_derived_from_the_tables():
    text = " ".join(invoke("render", "--help").stdout.split())
    for f in FORMATS:
        assert f.name in text
    for r in options.RANKDIRS:
        assert f"{r.name} ({r.meaning})" in text
    for name in options.RENDERERS:
        assert name in text


def test_theme_spells_every_cut_and_write_as_the_vocabulary_does():
    from detachviz.render import theme

    assert theme.CUT_TEXT == {c.name: c.label for c in vocab.CUTS}
    assert set(theme.NODE_STYLE) == set(vocab.KINDS) == set(theme.LEGEND_KIND_TEXT)
    assert theme.WRITE_TEXT == {w.name: w.label for w in vocab.WRITES}


@pytest.mark.parametrize(
    ("error", "code", "text"),
    [
        (UserError("bad -f"), 2, "bad -f"),
        (ScriptNotFound("no such script: x"), 2, "no such script: x"),
        (ScriptFailed("script failed"), 1, "script failed"),
        (RootError("no tensor"), 1, "no tensor"),
        (RenderError("graphviz-pure failed"), 1, "graphviz-pure failed"),
        (OutputError("cannot write x"), 1, "cannot write x"),
        (KeyboardInterrupt(), 130, "interrupted"),
        (Terminated("terminated"), 143, "terminated"),
        (ZeroDivisionError("boom"), 3, f"internal error: ZeroDivisionError: boom ({BUG_HINT})"),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, BaseException) else str(v),
)
def test_one_place_maps_errors_to_exit_codes(error, code, text):
    assert exit_code_for(error) == (code, text)


@pytest.mark.parametrize(
    "args",
    [["render", "--bogus", "x.py"], ["render"], ["grad"], ["render", "x.py", "-j", "0"]],
    ids=" ".join,
)
def test_usage_errors_are_one_line(args):
    result = invoke(*args)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert "--help" in lines[0] and "Usage:" not in result.stderr


def test_run_imports_no_renderer_graph_or_graphviz(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import sys\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('graphviz', 'rich')\n"
        "    or m.startswith(('detachviz.render', 'detachviz.graph', 'detachviz.torchviz'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-m", "detachviz", "run", str(probe)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    # The vocabulary tables only: `detachviz.render.options` gives the CLI its choices and
    # `detachviz.graph.vocab` is the engine's words; neither imports anything heavy.
    assert eval(out) == [  # noqa: S307 - our own probe's printed list
        "detachviz.graph",
        "detachviz.graph.vocab",
        "detachviz.render",
        "detachviz.render.options",
    ]


def test_torchviz_loads_on_first_use_in_a_script(script):
    from detachviz.runner import run_script

    plain = run_script(script("import sys\nseen = 'detachviz.torchviz' in sys.modules\n"))
    assert plain.error_text == ""
    path = script("from torchviz import make_dot\ny = (torch.ones(2, requires_grad=True) * 2)\n"
                  "g = make_dot(y.sum())\n", name="dot.py")  # fmt: skip
    used = run_script(path)
    assert used.error_text == "" and "digraph" in used.namespace["g"].source


# Four scripts that would interfere if a batch leaked state between them: each has its own
# `helper.py` (same module name), draws random numbers after seeding, changes the default
# dtype or grad mode, or chdirs away.
BATCH = {
    "one/a.py": """
        from helper import scale
        torch.manual_seed(0)
        w = torch.randn(3, requires_grad=True)
        loss = (w * scale).sum()
        loss.backward()
    """,
    "one/helper.py": "scale = 2.0\n",
    "two/b.py": """
        import os
        from helper import f
        torch.set_default_dtype(torch.float64)
        x = torch.ones(2, requires_grad=True)
        y = f(x).sum()
        torch.set_grad_enabled(False)
        os.chdir("..")
    """,
    "two/helper.py": "def f(x):\n    return x.exp()\n",
    "three/c.py": """
        from helper import g
        x = torch.rand(2, requires_grad=True)
        y = g(x)
        y.backward()
    """,
    "three/helper.py": "def g(x):\n    return (x.detach() * x).sum()\n",
    "four/d.py": """
        x = torch.ones(2, requires_grad=True)
        y = (x * torch.randn(2)).sum()
        y.backward()
    """,
}
SCRIPTS = ["one/a.py", "two/b.py", "three/c.py", "four/d.py"]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "detachviz", *args], cwd=cwd, capture_output=True, check=False
    )


@pytest.mark.parametrize("fmt", ["json", "svg"])
def test_a_batch_in_one_process_equals_one_process_per_script(tmp_path, fmt):
    for name, code in BATCH.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(code).lstrip())
    batch = _cli("render", *SCRIPTS, "--out-dir", "batch", "-f", fmt, cwd=tmp_path)
    assert batch.returncode == 0, batch.stderr
    for s in SCRIPTS:
        name = f"{Path(s).stem}.{fmt}"
        fresh = _cli("render", s, "-o", f"fresh/{name}", cwd=tmp_path)
        assert fresh.returncode == 0, fresh.stderr
        one, alone = tmp_path / "batch" / name, tmp_path / "fresh" / name
        assert one.read_bytes() == alone.read_bytes(), s
