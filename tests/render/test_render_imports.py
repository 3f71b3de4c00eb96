"""render/ knows nothing of tensors: it imports only the graph model, stdlib and graphviz."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import detachviz.render

RENDER = Path(detachviz.render.__file__).parent
ALLOWED_PROJECT = ("detachviz.render", "detachviz.graph.model", "detachviz.graph.vocab")


def imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


@pytest.mark.parametrize("path", sorted(RENDER.glob("*.py")), ids=lambda p: p.name)
def test_render_imports(path):
    for name in imports(path):
        top = name.split(".")[0]
        if top == "detachviz":
            assert name.startswith(ALLOWED_PROJECT), f"{path.name} imports {name}"
        else:
            assert top in sys.stdlib_module_names or top == "graphviz", (
                f"{path.name} imports {name}"
            )
