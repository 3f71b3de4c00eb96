"""The package's import structure (DESIGN.md, "Layout and dependency direction"): imports run
one way (no cycles), no module reaches into another module's underscore names (by import, at
module level or inside a function, nor as `module._name`), and no module is over ~800 lines.
Plus the engine's own layering: torch/ only re-exports, the op kit never imports the ops.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "detachviz"
MAX_LINES = 800


def _modules() -> dict[str, Path]:
    mods = {}
    for f in PACKAGE.rglob("*.py"):
        parts = list(f.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = f
    return mods


MODULES = _modules()
IN_SCOPE = sorted(MODULES)


def _resolve(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str) -> list[tuple[str, str | None]]:
    """(imported module, imported name or None) for every import statement of `module`."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[tuple[str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                target = _resolve(a.name)
                if target and a.name.startswith("detachviz"):
                    out.append((target, None))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not node.module.startswith("detachviz"):
                continue
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                if sub in MODULES:
                    out.append((sub, None))
                else:
                    target = _resolve(node.module)
                    if target:
                        out.append((target, a.name))
    return out


def _module_aliases(module: str) -> dict[str, str]:
    """Local names bound to package modules by `import x.y as z` / `from x import y`."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                if sub in MODULES:
                    names[a.asname or a.name] = sub
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.asname and a.name in MODULES:
                    names[a.asname] = a.name
    return names


def _graph() -> dict[str, set[str]]:
    return {m: {t for t, _ in _imports(m) if t != m and t in IN_SCOPE} for m in IN_SCOPE}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def test_no_import_cycle() -> None:
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("module", IN_SCOPE)
def test_no_underscore_name_imported_from_another_module(module: str) -> None:
    bad = [
        f"{target}.{name}"
        for target, name in _imports(module)
        if name is not None
        and target != module
        and name.startswith("_")
        and not name.startswith("__")
    ]
    assert bad == []


@pytest.mark.parametrize("module", IN_SCOPE)
def test_no_underscore_attribute_of_another_module(module: str) -> None:
    aliases = _module_aliases(module)
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    bad = sorted(
        {
            f"{aliases[n.value.id]}.{n.attr}"
            for n in ast.walk(tree)
            if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name)
            and n.value.id in aliases
            and n.attr.startswith("_")
            and not n.attr.startswith("__")
        }
    )
    assert bad == []


@pytest.mark.parametrize("module", IN_SCOPE)
def test_module_size(module: str) -> None:
    n = len(MODULES[module].read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"{module}: {n} lines"


def test_torch_namespace_only_reexports() -> None:
    """detachviz/torch/ holds no logic: assignments and imports only."""
    for path in (PACKAGE / "torch").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defs = [
            n.name
            for n in tree.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        ]
        assert defs == [], f"{path.name} defines {defs}"


def test_lower_layers_do_not_import_the_op_families_or_higher() -> None:
    """The kit and everything under it never import ops/, autograd, factory or methods."""
    low = [
        "state",
        "dtype",
        "errors",
        "size",
        "node",
        "trace",
        "arrays",
        "printing",
        "tensor",
        "promote",
        "function",
        "rules",
    ]
    high = ("detachviz.engine.ops", "detachviz.engine.autograd", "detachviz.engine.factory")
    high += ("detachviz.engine.methods", "detachviz.engine.forward_ad")
    for name in low:
        mod = f"detachviz.engine.{name}"
        bad = [t for t, _ in _imports(mod) if t.startswith(high)]
        assert bad == [], f"{mod} imports {bad}"
