"""Every torch.nn.init function against real torch under the same seed: the same numbers,
compared exactly (orthogonal_ to float32 rounding: torch factors with its own LAPACK)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import detachviz.nn as dnn
import detachviz.torch as dv

torch = pytest.importorskip("torch")
tnn = pytest.importorskip("torch.nn")

# (call on `init` and a fresh tensor `w`, shape)
CALLS = [
    ("init.uniform_(w, -0.5, 2.0)", (3, 5)),
    ("init.normal_(w, 1.0, 0.1)", (17, 3)),
    ("init.trunc_normal_(w)", (40, 30)),
    ("init.trunc_normal_(w, 0.0, 0.02)", (64, 16)),
    ("init.trunc_normal_(w, mean=1.0, std=1.0, a=1.2, b=1.3)", (20, 20)),
    ("init.trunc_normal_(w, std=3.0, a=-0.5, b=0.5)", (9, 7)),
    ("init.xavier_uniform_(w)", (6, 4, 3, 3)),
    ("init.xavier_uniform_(w, gain=init.calculate_gain('tanh'))", (8, 5)),
    ("init.xavier_normal_(w, gain=2.0)", (8, 5)),
    ("init.kaiming_uniform_(w)", (8, 3, 5)),
    ("init.kaiming_uniform_(w, a=0.2, mode='fan_out', nonlinearity='leaky_relu')", (8, 3, 5)),
    ("init.kaiming_normal_(w, mode='fan_out', nonlinearity='relu')", (16, 4, 3, 3)),
    ("init.kaiming_normal_(w, nonlinearity='selu')", (5, 7)),
    ("init.kaiming_uniform_(w, nonlinearity='conv_transpose2d')", (5, 7)),
    ("init.constant_(w, 0.3)", (2, 3)),
    ("init.ones_(w)", (4,)),
    ("init.zeros_(w)", (4,)),
    ("init.eye_(w)", (3, 5)),
    ("init.dirac_(w)", (4, 2, 3, 3)),
    ("init.dirac_(w, 2)", (6, 3, 5)),
    ("init.dirac_(w)", (2, 2, 3, 3, 3)),
    ("init.sparse_(w, 0.3)", (10, 6)),
    ("init.sparse_(w, sparsity=0.5, std=1.0)", (7, 4)),
]


def _run(init, ns, call: str, shape: tuple[int, ...], seed: int):  # noqa: ANN001, ANN202
    ns.manual_seed(seed)
    w = ns.empty(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eval(call, {"init": init, "w": w})  # noqa: S307 - the constant table above
    return w


@pytest.mark.parametrize("seed", [0, 7])
@pytest.mark.parametrize("call, shape", CALLS)
def test_initialisers_draw_torchs_numbers(call: str, shape: tuple[int, ...], seed: int) -> None:
    ours = _run(dnn.init, dv, call, shape, seed)
    theirs = _run(tnn.init, torch, call, shape, seed)
    assert ours.tolist() == theirs.tolist()
    # the generator has moved on by the same number of draws
    assert dv.rand(3).tolist() == torch.rand(3).tolist()


@pytest.mark.parametrize("shape", [(4, 4), (3, 7), (7, 3), (6, 2, 3)])
def test_orthogonal_is_torchs_matrix_to_float32_rounding(shape: tuple[int, ...]) -> None:
    ours = _run(dnn.init, dv, "init.orthogonal_(w, gain=1.5)", shape, 0).numpy()
    theirs = _run(tnn.init, torch, "init.orthogonal_(w, gain=1.5)", shape, 0).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=2e-6)
    flat = ours.reshape(shape[0], -1)
    small = flat @ flat.T if shape[0] <= flat.shape[1] else flat.T @ flat
    np.testing.assert_allclose(small, 2.25 * np.eye(small.shape[0]), atol=1e-5)


@pytest.mark.parametrize(
    "name, args",
    [
        ("calculate_gain", ("leaky_relu", 0.2)),
        ("calculate_gain", ("leaky_relu", 3)),
        ("calculate_gain", ("conv_transpose3d",)),
        ("calculate_gain", ("selu",)),
    ],
)
def test_calculate_gain_matches(name: str, args: tuple) -> None:
    assert getattr(dnn.init, name)(*args) == getattr(tnn.init, name)(*args)


@pytest.mark.parametrize(
    "call, shape",
    [
        ("init.calculate_gain('leaky_relu', True)", (1,)),
        ("init.calculate_gain('swish')", (1,)),
        ("init.kaiming_uniform_(w, mode='fan_avg')", (3, 3)),
        ("init.xavier_uniform_(w)", (3,)),
        ("init.eye_(w)", (3, 3, 3)),
        ("init.dirac_(w)", (3, 3)),
        ("init.dirac_(w, 2)", (3, 3, 3)),
        ("init.orthogonal_(w)", (3,)),
        ("init.sparse_(w, 0.1)", (3, 3, 3)),
    ],
)
def test_bad_arguments_raise_torchs_value_errors(call: str, shape: tuple[int, ...]) -> None:
    messages = []
    for init, ns in ((dnn.init, dv), (tnn.init, torch)):
        with pytest.raises(ValueError) as info:
            _run(init, ns, call, shape, 0)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_deprecated_spellings_warn_as_torch_and_still_initialise() -> None:
    dv.manual_seed(0)
    w = dv.empty(2, 3)
    with pytest.warns(FutureWarning, match=r"`nn.init.xavier_uniform` is now deprecated"):
        dnn.init.xavier_uniform(w)
    torch.manual_seed(0)
    assert w.tolist() == tnn.init.xavier_uniform_(torch.empty(2, 3)).tolist()


def test_zero_element_tensors_are_a_no_op_with_torchs_warning() -> None:
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        dnn.init.kaiming_uniform_(dv.empty(0, 3))
