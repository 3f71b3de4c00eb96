"""Engine differences the differential fuzzer found, pinned: view requires_grad, overlap checks.

Each row is a tiny script over `torch`, its expected observations (hand-checked) and the same
script under real torch when installed. `see(x)` records what the script observes: a tensor's
values, None, or the text of an error raised by the statement passed as a lambda.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from detachviz import torch as dt


def _see(out: list[Any]) -> Any:
    def see(x: Any) -> None:
        if callable(x):
            try:
                x()
            except (RuntimeError, IndexError) as e:
                out.append(f"{type(e).__name__}: {str(e)[:30]}")
                return
            out.append("ok")
        elif x is None or isinstance(x, (bool, int, str, tuple)):
            out.append(x)
        else:
            out.append(np.round(np.asarray(x.detach().tolist(), dtype=float), 4).tolist())

    return see


def _run(torch_mod: Any, source: str) -> list[Any]:
    out: list[Any] = []
    exec(source, {"torch": torch_mod, "see": _see(out)})
    return out


CASES = [
    (
        "detach_-leaf-gets-no-grad",
        "v0 = torch.tensor([1.0, 2.0], requires_grad=True)\nv1 = v0 * v0\nv0.detach_()\n"
        "v1.sum().backward()\nsee(v0.grad)",
        [None],
    ),
    (
        "requires_grad_false-leaf-gets-no-grad",
        "v0 = torch.tensor([1.0, 2.0], requires_grad=True)\nv1 = v0 * v0\n"
        "v0.requires_grad_(False)\nv1.sum().backward()\nsee(v0.grad)",
        [None],
    ),
    (
        "no-grad-view-gets-no-grad",
        "v0 = torch.tensor([1.0, 2.0], requires_grad=True)\nwith torch.no_grad():\n"
        "    v1 = v0[0:]\nsee(v1.requires_grad)\nsee(v1.is_leaf)\nv1.sum().backward()\n"
        "see(v0.grad)\nsee(v1.grad)",
        [True, True, None, None],
    ),
    (
        "view-requires-grad-follows-base",
        "v0 = torch.tensor([0.5, -1.0])\nv1 = v0[1:]\nv0.requires_grad_()\nsee(v1.requires_grad)\n"
        "v2 = v1 * 2\nsee(v2.grad_fn.name())\nv0.requires_grad_(False)\nsee(v1.requires_grad)",
        [True, "MulBackward0", False],
    ),
    (
        "view-own-requires_grad_-gets-grad",
        "v0 = torch.tensor([0.5, -1.0])\nv1 = v0[1:]\nv0.requires_grad_()\nv1.requires_grad_()\n"
        "(v1 * 2).sum().backward()\nsee(v1.grad)\nsee(v0.grad)",
        [[2.0], None],
    ),
    (
        "regenerated-expand-view-sums-copies",
        "v0 = torch.tensor([0.3, 0.4], requires_grad=True)\nv1 = v0.sum()\nv2 = v1.expand(2)\n"
        "with torch.no_grad():\n    v1.add_(1)\nv2.sum().backward()\nsee(v0.grad)",
        [[2.0, 2.0]],
    ),
    (
        "copyslices-on-transposed-layout",
        "v0 = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)\n"
        "v1 = v0.t() + 2.0\nv1[0] = 0.5\nv1.sum().backward()\nsee(v0.grad)",
        [[[0.0, 1.0, 1.0], [0.0, 1.0, 1.0]]],
    ),
    (
        "overlap-checks",
        "v0 = torch.tensor([[1.0, 2.0], [3.0, 4.0]])\nv1 = v0.expand(2, 2, 2)\n"
        "see(lambda: v1.__setitem__(0, 0.5))\nsee(lambda: v1.zero_())\n"
        "see(lambda: v1.add_(1))\nsee(lambda: v1.copy_(v1))\nsee(lambda: v0.mul_(v0[0]))\n"
        "see(lambda: v0[0].mul_(v0[1]))\nsee(lambda: v0.mul_(v0.t()))\nsee(v0)",
        [
            "ok",
            "ok",
            "RuntimeError: unsupported operation: more th",
            "ok",
            "RuntimeError: unsupported operation: some el",
            "ok",
            "RuntimeError: unsupported operation: some el",
            [[0.0, 0.0], [0.0, 0.0]],
        ],
    ),
    (
        "stale-no-grad-view",
        "v0 = torch.tensor([0.1, -0.7], requires_grad=True)\nwith torch.no_grad():\n"
        "    v1 = v0[0:]\nv0.detach().mul_(2)\nsee(lambda: v1.grad_fn)\nsee(lambda: v1 * 2)\n"
        "see(lambda: v1[0].mul_(v0[0]))",
        [
            "RuntimeError: A view was created in no_grad ",
            "RuntimeError: A view was created in no_grad ",
            "RuntimeError: A view was created in no_grad ",
        ],
    ),
    (
        "view-of-no-grad-view-inplace",
        "v0 = torch.tensor([0.7, 1.5], requires_grad=True)\nwith torch.no_grad():\n"
        "    v1 = v0[0:]\nsee(lambda: v1.__setitem__(0, 0.5))\nv2 = v0.detach()\n"
        "with torch.no_grad():\n    v3 = v2.view(-1)\nsee(lambda: v3.copy_(v0))",
        [
            "RuntimeError: Output 0 of Select is a view o",
            "RuntimeError: A view was created in no_grad ",
        ],
    ),
    (
        "backward-twice-through-copyslices",
        "v0 = torch.tensor([[0.5, -1.9]], requires_grad=True)\nv1 = -v0\nv1[0] = 0.5\n"
        "v1.sum().backward()\nsee(lambda: v1.sum().backward())",
        ["RuntimeError: Trying to backward through the"],
    ),
    (
        "small-shape-and-name-details",
        "v0 = torch.tensor(-1.2, requires_grad=True)\n"
        "see(v0.expand(2).reshape(-1).grad_fn.name())\nsee(lambda: v0[0:])\n"
        "see(torch.tensor(v0.detach().expand(2, 2)).stride())\n"
        "see((torch.tensor([1.0, 2.0]) @ torch.ones(2, 2))._version)",
        [
            "ReshapeAliasBackward0",
            "IndexError: slice() cannot be applied to a",
            (2, 1),
            1,
        ],
    ),
]


@pytest.mark.parametrize("source,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_detachviz_observes_what_torch_does(source: str, expected: list[Any]) -> None:
    assert _run(dt, source) == expected


@pytest.mark.parametrize("source,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_expectations_are_torchs(source: str, expected: list[Any]) -> None:
    torch = pytest.importorskip("torch")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _run(torch, source) == expected
