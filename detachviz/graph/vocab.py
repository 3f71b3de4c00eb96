"""The project's vocabulary, each word defined once: node kinds, cut mechanisms, writes,
the record op names the trace contract uses, and the ops that return views.

This module imports nothing, so every layer may read it: the engine records ops under these
names, capture builds the graph model from them, the renderer styles and the legend lists
them, and the CLI's help derives from them. It is the one module of `graph/` the engine may
import (tests/test_layering.py).
"""

from __future__ import annotations

from typing import NamedTuple

# Node kinds of the graph model. Only what the root's backward pass visits is
# output/function/leaf/saved/base; everything drawn on the far side of a cut is untracked.
# `base` is the tensor a root that is a view looks into (its `_base`), as torchviz draws it.
OUTPUT, FUNCTION, LEAF, SAVED, UNTRACKED = "output", "function", "leaf", "saved", "untracked"
BASE = "base"
KINDS = (OUTPUT, FUNCTION, LEAF, SAVED, UNTRACKED, BASE)


class Cut(NamedTuple):
    """A mechanism that severs gradient flow from a value that requires grad.

    name      as in trace records (`Record.cut`), graph edges (`Edge.cut`) and JSON
    spelling  as the user wrote it in code, in `grad` reasons ("computed through detach()")
    label     the text on the picture's cut edge (after "cut: ")
    verb      how `grad` says a leaf reached only through it lost its gradient
              ("cut by detach() at line 3")
    edge      True when the cut value is drawn as an edge from its source; no_grad cuts the
              op run under it, which is drawn as an untracked node instead
    """

    name: str
    spelling: str
    label: str
    verb: str = "cut by"
    edge: bool = True


DETACH, DETACH_, DATA, NO_GRAD, COPY = "detach", "detach_", "data", "no_grad", "copy"
CUTS: tuple[Cut, ...] = (
    Cut(DETACH, "detach()", "detach()"),
    Cut(DETACH_, "detach_()", "detach_()"),
    Cut(DATA, ".data", ".data", verb="only reached through"),
    Cut(NO_GRAD, "no_grad", "no_grad", verb="only used inside", edge=False),
    Cut(COPY, "torch.tensor(...)", "torch.tensor() copy", verb="copied by"),
)
CUT_NAMES = tuple(c.name for c in CUTS)
CUT_BY_NAME = {c.name: c for c in CUTS}
EDGE_CUTS = tuple(c.name for c in CUTS if c.edge)


class Write(NamedTuple):
    """An in-place write into a tensor that a drawn backward node saved, before that
    backward ran. `label` is the text on its edge (over "line N")."""

    name: str
    label: str


INPLACE = "inplace"
WRITES: tuple[Write, ...] = (
    # shares the saved tensor's version counter: torch raises at backward
    Write(INPLACE, "in-place write to a saved tensor:\nbackward will raise"),
    # writes the same memory with a fresh counter: torch does not notice, the grad is wrong
    Write(DATA, "write through .data to a saved tensor:\ngradient silently wrong"),
)
WRITE_NAMES = tuple(w.name for w in WRITES)
WRITE_BY_NAME = {w.name: w for w in WRITES}

# Record op names with a meaning to capture and `grad` (every other op name is the forward
# op's own name: `pow`, `mul`, `add_`, ...). A differentiation is recorded with the roots as
# inputs and no outputs.
BACKWARD = "backward"
AUTOGRAD_GRAD = "autograd.grad"
DIFFERENTIATIONS = (BACKWARD, AUTOGRAD_GRAD)
# The cut ops DETACH, DETACH_ and DATA are recorded under their cut names (above).

# Ops that return a view of their input: an in-place write through them reaches the base.
VIEW_OPS = frozenset(
    {"view", "reshape", "t", "transpose", "permute", "expand", "unsqueeze", "squeeze",
     "flatten", "getitem", DETACH, "view_as", "narrow", "select", "slice", "alias",
     "split", "unbind", "as_strided"}
)  # fmt: skip
