"""The generated savers: for a node class and the mask of its inputs that require grad, one
function `saver(node, ins, out)` that fills the node's `_saved` / `_versions` (what its `Saved`
rows ask for). The op kit (engine/function.py) calls them on every op that saves."""

from __future__ import annotations

from typing import Any

from detachviz.engine import errors, state
from detachviz.engine.graph_hooks import pack_node
from detachviz.engine.node import Node, SavedOutput
from detachviz.engine.promote import PY_SCALARS
from detachviz.engine.tensor import VersionCounter

_new = object.__new__


def save_plan(cls: type[Node], mask: int) -> tuple[int | None, ...]:
    """For each saved slot of `cls`, its source (input index, -1 result) or None when no
    input that needs it requires grad."""
    return tuple(src if need & mask else None for src, need in zip(cls._save_src, cls._save_need))


def compile_saver(plan: tuple[int | None, ...]) -> Any:
    """A function `saver(node, ins, out)` that fills `node._saved` / `node._versions` for one
    save plan. Generated once per (node class, input mask), like dataclasses generate
    __init__: saving runs on every op, and a loop over the plan costs more than the op."""
    lines = ["def saver(node, ins, out):"]
    names = []
    for k, src in enumerate(plan):
        if src is None:
            names.append(("None", "0"))
            continue
        if src < 0:
            # objects made without __init__ calls: this runs for every exp/tanh/relu/...
            lines += [
                "    vc = out._vc",
                "    if vc is None:",
                "        vc = out._vc = NEW(VC)",
                "        vc.v = 0",
                f"    t{k} = so = NEW(SO)",
                "    so._data = out._data",
                "    so._vc = vc",
                "    so._dtype = out._dtype",
                "    so._storage = out._storage",
                f"    v{k} = vc.v",
            ]
        else:
            lines += [
                f"    t{k} = ins[{src}]",
                f"    if t{k}.__class__ in SCALARS or t{k} is None:  # None: an undefined input",
                f"        v{k} = 0",
                "    else:",
                f"        vc = t{k}._vc",
                f"        v{k} = 0 if vc is None else vc.v",
                f"        if t{k}._x is not None and t{k}._x.inference:",
                "            raise RuntimeError(INFERENCE_SAVED)",
            ]
        names.append((f"t{k}", f"v{k}"))
    lines.append(f"    node._saved = ({', '.join(n for n, _ in names)},)")
    lines.append(f"    node._versions = ({', '.join(v for _, v in names)},)")
    lines.append("    if STATE.saved_hooks:")
    lines.append("        PACK(node)")
    ns: dict[str, Any] = {
        "VC": VersionCounter,
        "SO": SavedOutput,
        "NEW": _new,
        "SCALARS": PY_SCALARS,
        "INFERENCE_SAVED": errors.INFERENCE_SAVED,
        "STATE": state,
        "PACK": pack_node,
    }
    exec("\n".join(lines), ns)  # noqa: S102 - generated from the plan above only
    return ns["saver"]


def saver(cls: type[Node], mask: int) -> Any:
    savers = cls.__dict__.get("_savers")
    if savers is None:
        savers = {}
        cls._savers = savers
    fn = savers[mask] = compile_saver(save_plan(cls, mask))
    return fn
