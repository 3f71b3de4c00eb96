"""Knowledge flows one way: engine -> graph -> render -> cli (DESIGN.md, STYLE.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "detachviz"

# For each part of the package, the imports it must never make.
FORBIDDEN = {
    "engine": ("detachviz.graph", "detachviz.render", "detachviz.cli", "detachviz.runner",
               "detachviz.nn", "detachviz.optim", "detachviz.torch", "click", "rich",
               "graphviz", "torch"),
    "graph": ("detachviz.render", "detachviz.cli", "click", "rich", "torch"),
    "render": ("detachviz.engine", "detachviz.cli", "numpy", "click", "rich", "torch"),
    "torch": ("detachviz.graph", "detachviz.render", "detachviz.cli", "click", "rich", "torch"),
    "nn": ("detachviz.graph", "detachviz.render", "detachviz.cli", "click", "rich", "torch"),
}  # fmt: skip

# Dependency-free modules every layer may import: the one vocabulary and the error base.
EVERYONE_MAY_IMPORT = ("detachviz.graph.vocab",)


def imports_of(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
            names.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def part_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_imports_respect_the_direction(path: Path) -> None:
    banned = FORBIDDEN.get(part_of(path), ())
    bad = [
        n
        for n in imports_of(path)
        if any(n == b or n.startswith(b + ".") for b in banned)
        and not any(n == ok or n.startswith(ok + ".") for ok in EVERYONE_MAY_IMPORT)
        and n != "detachviz.graph"  # `from detachviz.graph import vocab`
    ]
    assert bad == [], f"{path.name} imports {bad}"


def test_vocab_imports_nothing() -> None:
    # nothing but what its rows are made with (typing.NamedTuple)
    assert [
        n
        for n in imports_of(PACKAGE / "graph" / "vocab.py")
        if n.split(".")[0] not in ("__future__", "typing")
    ] == []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_cli_imports_click_and_rich(path: Path) -> None:
    if path.name == "cli.py":
        return
    bad = [n for n in imports_of(path) if n.split(".")[0] in ("click", "rich")]
    assert bad == [], f"{path.name} imports {bad}"


def test_the_rule_catches_a_violation(tmp_path: Path) -> None:
    bad = tmp_path / "m.py"
    bad.write_text("import numpy\nfrom detachviz.engine import tensor\n")
    assert "numpy" in imports_of(bad)
    assert "detachviz.engine.tensor" in imports_of(bad)
