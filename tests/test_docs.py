"""The docs' images are current: the repo's own pre-commit hook, re-run with --check.

The options and the script list come from .pre-commit-config.yaml itself, so CI checks exactly
what the hook writes. A stale image means: run `pre-commit run --all-files` (or the hook's
command without --check) and commit the result.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
from pathlib import Path

import pytest
import yaml  # pre-commit's own dependency; pre-commit is a test dependency
from click.testing import CliRunner

from detachviz.cli import cli

ROOT = Path(__file__).resolve().parents[1]
GALLERY = ROOT / "docs" / "gallery"
DOCS_TOOL = ROOT / "docs" / "gallery_outputs.py"
HOOK_ID = "detachviz-docs-images"
ERRORS_HOOK_ID = "detachviz-docs-error-images"  # scripts that show an error on purpose
HOOK_IDS = (HOOK_ID, ERRORS_HOOK_ID, "detachviz-example-images")  # ...; the README's pictures


def docs_hook(hook_id: str = HOOK_ID) -> dict:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    hooks = [h for repo in config["repos"] for h in repo["hooks"] if h["id"] == hook_id]
    assert len(hooks) == 1, f"expected one {hook_id} hook"
    return hooks[0]


def hook_options(hook_id: str = HOOK_ID) -> list[str]:
    """The hook's `detachviz render` options, without the command words."""
    entry = shlex.split(docs_hook(hook_id)["entry"])
    assert entry[:2] == ["detachviz", "render"]
    return entry[2:]


def invoke(*args: str) -> tuple[int, bytes, str]:
    old = Path.cwd()
    os.chdir(ROOT)
    try:
        result = CliRunner().invoke(cli, ["render", *args])
    finally:
        os.chdir(old)
    return result.exit_code, result.stdout_bytes, result.stderr


def test_every_gallery_script_is_rendered_by_a_hook() -> None:
    listed = [Path(a).name for h in (HOOK_ID, ERRORS_HOOK_ID) for a in docs_hook(h)["args"]]
    on_disk = {p.name for p in GALLERY.glob("*.py")}
    assert sorted(listed) == sorted(on_disk)
    assert "--allow-errors" in hook_options(ERRORS_HOOK_ID)


@pytest.mark.parametrize("hook_id", HOOK_IDS)
def test_images_are_current(hook_id: str) -> None:
    """The hook's own command with --check: exit 0 and every image `current`."""
    scripts = docs_hook(hook_id)["args"]
    code, _, stderr = invoke("--check", *hook_options(hook_id), *scripts)
    assert code == 0, stderr
    assert stderr.count("current ") == len(scripts)


def test_gallery_page_shows_every_example() -> None:
    page = (ROOT / "docs" / "gallery.md").read_text(encoding="utf-8")
    for script in sorted(GALLERY.glob("*.py")):
        assert f"gallery/{script.name}" in page, script.name
        assert f"images/{script.stem}.svg" in page, script.stem


def _tool():
    spec = importlib.util.spec_from_file_location("gallery_outputs", DOCS_TOOL)
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


@pytest.mark.parametrize(
    ("page", "blocks"),
    [("gallery.md", 10), ("cli.md", 10), ("json-format.md", 1), ("../README.md", 1)],
)
def test_pasted_output_is_current(page: str, blocks: int) -> None:
    """The output pasted in the docs is what the commands print now."""
    tool = _tool()
    path = (tool.DOCS / page).resolve()
    assert path in tool.PAGES
    text = path.read_text(encoding="utf-8")
    assert text.count("<!-- output: ") + text.count("<!-- session: ") >= blocks
    assert tool.refresh(text) == text, "stale: run python docs/gallery_outputs.py"
