"""Choosing the engine: `--engine`, $DETACHVIZ_ENGINE, the API and the notebook magic; the
default never imports torch, and a missing PyTorch is one line and exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from detachviz import engines
from detachviz.cli import cli
from detachviz.errors import UserError

ROOT = Path(__file__).resolve().parents[2]

DETACHED = """\
a = torch.ones(5, requires_grad=True)
b = a**3
c = a.detach() ** 6
i = (b + c).sum()
i.backward()
"""

# Runs the CLI in this process, then prints which torch modules it left loaded (the
# compat swap removes detachviz's own `torch` again, so any left is the real one).
PROBE = textwrap.dedent("""
    import atexit, sys
    def loaded():
        mods = sorted(m for m in sys.modules
                      if m.split(".")[0] == "torch" or m == "detachviz.torch_engine")
        print("LOADED", mods, file=sys.stderr)
    atexit.register(loaded)
    from detachviz.cli import cli
    cli(sys.argv[1:])
""")


def _probe(args, env=None):
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        check=False,
    )
    line = next(ln for ln in result.stderr.splitlines() if ln.startswith("LOADED"))
    return result, eval(line[len("LOADED ") :])  # noqa: S307 - our own probe's list


@pytest.mark.parametrize("command", ["render", "grad", "run"])
def test_the_default_engine_never_imports_torch(tmp_path, command):
    script = tmp_path / "s.py"
    script.write_text(DETACHED)
    args = [command, str(script)] + (
        ["-o", str(tmp_path / "s.json")] if command == "render" else []
    )
    result, loaded = _probe(args, env={engines.ENV: ""})
    assert result.returncode == 0, result.stderr
    assert loaded == []


def test_the_choices_come_from_the_one_table():
    for command in ("render", "grad"):
        text = CliRunner().invoke(cli, [command, "--help"]).output
        assert "--engine [" + "|".join(engines.ENGINE_NAMES) + "]" in text
        assert f"${engines.ENV}" in text


def test_an_unknown_engine_is_a_usage_error(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(DETACHED)
    result = CliRunner().invoke(cli, ["grad", "--engine", "jax", str(script)])
    assert result.exit_code == 2
    assert "unknown --engine 'jax': use one of detachviz, torch" in result.stderr
    with pytest.raises(UserError, match="unknown DETACHVIZ_ENGINE 'jax'"):
        os.environ[engines.ENV] = "jax"
        try:
            engines.resolve(None)
        finally:
            del os.environ[engines.ENV]


def test_without_pytorch_it_says_how_to_install_it(tmp_path):
    # A `torch` that cannot be imported stands first on the path, as if none were installed.
    blocker = tmp_path / "blocked" / "torch"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('No module named torch')\n")
    script = tmp_path / "s.py"
    script.write_text(DETACHED)
    env = {**os.environ, "PYTHONPATH": f"{blocker.parent}{os.pathsep}{ROOT}"}
    for args in (["render", "--engine", "torch", str(script)], ["grad", str(script)]):
        extra = {} if "--engine" in args else {engines.ENV: "torch"}
        result = subprocess.run(
            [sys.executable, "-m", "detachviz", *args],
            capture_output=True,
            text=True,
            env={**env, **extra},
            check=False,
        )
        assert result.returncode == 2, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert "needs PyTorch, which is not installed" in lines[0]
        assert "`pip install torch`" in lines[0]
    assert not (tmp_path / "s.svg").exists()
