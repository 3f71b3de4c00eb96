"""Tensor repr and torch.Size printing, checked by hand and against real PyTorch."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from detachviz.engine import dtype as D
from detachviz.engine import printing
from detachviz.engine.printing import format_tensor
from detachviz.engine.size import Size

NAN, INF = math.nan, math.inf


@pytest.fixture(autouse=True)
def _default_printoptions():
    printing.set_printoptions(profile="default")
    yield
    printing.set_printoptions(profile="default")


# ---------------------------------------------------------------- hand-written (no torch needed)

HAND = [
    (2.0, D.float32, {"grad_fn_name": "MulBackward0"}, "tensor(2., grad_fn=<MulBackward0>)"),
    ([1.0, 1.0], D.float32, {"requires_grad": True}, "tensor([1., 1.], requires_grad=True)"),
    (1.0, D.float32, {"requires_grad": True}, "tensor(1., requires_grad=True)"),
    ([1, 2], D.int64, {}, "tensor([1, 2])"),
    ([1, 2], D.int32, {}, "tensor([1, 2], dtype=torch.int32)"),
    ([1.0, 2.0], D.float64, {}, "tensor([1., 2.], dtype=torch.float64)"),
    ([True, False], D.bool_, {}, "tensor([ True, False])"),
    (np.zeros(0), D.float32, {}, "tensor([])"),
    (np.zeros((0, 3)), D.float32, {}, "tensor([], size=(0, 3))"),
    (np.zeros(0), D.int64, {}, "tensor([], dtype=torch.int64)"),
    (0.1, D.float32, {}, "tensor(0.1000)"),
    ([0.1, 1e5], D.float32, {}, "tensor([1.0000e-01, 1.0000e+05])"),
    ([1e5], D.float32, {}, "tensor([100000.])"),
    ([1.5, -2.25], D.float32, {}, "tensor([ 1.5000, -2.2500])"),
    ([NAN, INF, -INF, 1.0], D.float32, {}, "tensor([nan, inf, -inf, 1.])"),
    ([-0.0], D.float32, {}, "tensor([-0.])"),
    ([[1.0, 2.0], [3.0, 4.0]], D.float32, {}, "tensor([[1., 2.],\n        [3., 4.]])"),
    (
        np.arange(8.0).reshape(2, 2, 2),
        D.float32,
        {},
        "tensor([[[0., 1.],\n         [2., 3.]],\n\n        [[4., 5.],\n         [6., 7.]]])",
    ),
    (1.5, D.float32, {"tangent": np.float32(2.0)}, "tensor(1.5000, tangent=2.0)"),
    (
        [2.25, 4.0],
        D.float32,
        {"tangent": np.array([6.0, 4.0], np.float32)},
        "tensor([2.2500, 4.0000], tangent=tensor([6., 4.]))",
    ),
]


@pytest.mark.parametrize(("values", "dtype", "flags", "expected"), HAND)
def test_format_tensor_by_hand(values, dtype, flags, expected):
    assert format_tensor(np.array(values), dtype, **flags) == expected


def test_long_row_wraps_and_suffix_moves_to_its_own_line():
    out = format_tensor(np.full(30, 2.0), D.float32, grad_fn_name="MulBackward0")
    assert out == (
        "tensor([2., 2., 2., 2., 2., 2., 2., 2., 2., 2., 2., 2., 2., 2., 2., 2., 2., 2.,\n"
        "        2., 2., 2., 2., 2., 2., 2., 2., 2., 2., 2., 2.],\n"
        "       grad_fn=<MulBackward0>)"
    )


def test_summary_above_threshold_shows_three_edge_items():
    assert format_tensor(np.arange(2000), D.int64) == (
        "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"
    )


def test_printoptions_context_restores_defaults():
    with printing.printoptions(precision=2):
        assert format_tensor(np.array([1.12345]), D.float32) == "tensor([1.12])"
    assert format_tensor(np.array([1.12345]), D.float32) == "tensor([1.1235])"


@pytest.mark.parametrize(
    ("dims", "text", "numel"),
    [
        ((2, 3), "torch.Size([2, 3])", 6),
        ((), "torch.Size([])", 1),
        ((0, 4), "torch.Size([0, 4])", 0),
    ],
)
def test_size_prints_like_torch(dims, text, numel):
    s = Size(dims)
    assert (repr(s), str(s), s.numel()) == (text, text, numel)


def test_size_slices_and_concatenations_stay_sizes():
    s = Size([2, 3, 4])
    assert isinstance(s[1:], Size) and s[1:] == (3, 4)
    assert isinstance(s[0], int) and s[0] == 2
    assert isinstance(s + (5,), Size) and isinstance((1,) + s, Size)
    assert s == (2, 3, 4) and hash(s) == hash((2, 3, 4))
    assert Size(np.array([2, 3])) == (2, 3)


def test_size_refuses_floats_with_torchs_message():
    with pytest.raises(TypeError, match=r"takes an iterable of 'int' \(item 1 is 'float'\)"):
        Size([2, 2.5])


# ---------------------------------------------------------------- against real torch

RNG = np.random.default_rng(0)

# (label, values, dtype); every row is also run with requires_grad / grad_fn / tangent when float
ORACLE = [
    ("scalar", np.array(3.25), D.float32),
    ("scalar_int", np.array(7), D.int64),
    ("scalar_bool", np.array(True), D.bool_),
    ("scalar_nan", np.array(NAN), D.float32),
    ("float32_0.1", np.array([0.1, 0.2, 0.3]), D.float32),
    ("float32_1e5", np.array([0.1, 1e5]), D.float32),
    ("float32_big", np.array([1e8, 1.0]), D.float32),
    ("float32_huge", np.array([1.5e8]), D.float32),
    ("float32_tiny", np.array([1e-5, 1.0]), D.float32),
    ("float32_ratio", np.array([1.0, 1001.0]), D.float32),
    ("int_valued", np.array([1.0, -20.0, 300.0]), D.float32),
    ("int_valued_sci", np.array([1.0, 1e9]), D.float32),
    ("mixed_signs", RNG.standard_normal(7), D.float32),
    ("zeros", np.zeros(4), D.float32),
    ("neg_zero", np.array([-0.0, 0.0]), D.float32),
    ("nan_inf", np.array([NAN, INF, -INF, 0.0]), D.float32),
    ("nan_and_value", np.array([NAN, 1.5, -INF]), D.float32),
    ("nan_int_valued", np.array([NAN, 100.0]), D.float32),
    ("sci_with_inf", np.array([1e-7, INF, -3.0]), D.float32),
    ("float64", RNG.standard_normal((2, 3)), D.float64),
    ("float64_sci", RNG.standard_normal((3, 2)) * 1e7, D.float64),
    ("float16", RNG.standard_normal((2, 2)), D.float16),
    ("int64", np.array([1, -2, 300]), D.int64),
    ("int32", np.array([[1, 2], [3, 4]]), D.int32),
    ("int16", np.array([5, -6]), D.int16),
    ("int8", np.array([5, -6]), D.int8),
    ("uint8", np.array([0, 255]), D.uint8),
    ("bool", np.array([[True, False], [False, True]]), D.bool_),
    ("empty", np.zeros(0), D.float32),
    ("empty_2d", np.zeros((0, 3)), D.float32),
    ("empty_3d_int", np.zeros((2, 0, 1)), D.int64),
    ("empty_bool", np.zeros(0), D.bool_),
    ("empty_f64", np.zeros((3, 0)), D.float64),
    ("matrix", np.arange(12.0).reshape(3, 4) - 5.5, D.float32),
    ("cube", RNG.standard_normal((2, 3, 4)), D.float32),
    ("rank4", RNG.standard_normal((2, 2, 2, 2)), D.float32),
    ("rank5_int", np.arange(32).reshape(2, 2, 2, 2, 2), D.int64),
    ("long_row", RNG.standard_normal(40), D.float32),
    ("long_row_ints", np.arange(100), D.int64),
    ("long_row_bool", RNG.random(50) > 0.5, D.bool_),
    ("wide_matrix", RNG.standard_normal((3, 25)), D.float32),
    ("wide_cube", RNG.standard_normal((2, 2, 30)) * 1e-6, D.float64),
    ("summary_1d", RNG.standard_normal(1001), D.float32),
    ("summary_2d", RNG.standard_normal((40, 50)), D.float32),
    ("summary_2d_narrow", RNG.standard_normal((1001, 2)), D.float32),
    ("summary_3d", np.arange(3000).reshape(10, 10, 30), D.int64),
    ("summary_small_edges", np.arange(2002.0).reshape(2, 1001), D.float64),
    ("summary_sci", np.geomspace(1e-6, 1e6, 1200), D.float32),
    ("one_by_one", np.array([[[5.0]]]), D.float32),
]
FLAGS = [
    ("plain", {}),
    ("requires_grad", {"requires_grad": True}),
    ("grad_fn", {"grad_fn_name": "MulBackward0"}),
    ("tangent", {"tangent": True}),
]


def _torch_dtype(torch, dtype):
    return getattr(torch, dtype.name)


def _torch_repr(torch, values: np.ndarray, dtype, flags: dict) -> str:
    """repr of the torch tensor built from the same numpy values, with the same flags."""
    t = torch.from_numpy(np.array(values.astype(dtype.np), copy=True))
    if flags.get("requires_grad") or flags.get("grad_fn_name"):
        t.requires_grad_(True)
    if flags.get("grad_fn_name"):
        t = t * 1  # MulBackward0
    if flags.get("tangent"):
        import torch.autograd.forward_ad as fwad

        with fwad.dual_level():
            return repr(fwad.make_dual(t, _tangent_of(torch, values, dtype)))
    return repr(t)


def _tangent_values(values: np.ndarray, dtype) -> np.ndarray:
    return (np.asarray(values, np.float64) * 0.5 - 1.0).astype(dtype.np)


def _tangent_of(torch, values, dtype):
    return torch.from_numpy(np.array(_tangent_values(values, dtype), copy=True))


def _ours(values: np.ndarray, dtype, flags: dict) -> str:
    kwargs = dict(flags)
    if kwargs.pop("tangent", False):
        kwargs["tangent"] = _tangent_values(values, dtype)
    return format_tensor(values.astype(dtype.np), dtype, **kwargs)


# only floating tensors can require grad or carry a tangent
ORACLE_CASES = [
    pytest.param(values, dtype, flags, id=f"{label}-{flag_label}")
    for label, values, dtype in ORACLE
    for flag_label, flags in FLAGS
    if dtype.is_floating_point or not flags
]


@pytest.mark.parametrize(("values", "dtype", "flags"), ORACLE_CASES)
def test_repr_matches_torch(values, dtype, flags):
    torch = pytest.importorskip("torch")
    assert _ours(values, dtype, flags) == _torch_repr(torch, values, dtype, flags)


@pytest.mark.parametrize(
    "options",
    [
        {"precision": 2},
        {"precision": 6},
        {"threshold": 5},
        {"threshold": 5, "edgeitems": 1},
        {"threshold": 5, "edgeitems": 0},
        {"linewidth": 40},
        {"sci_mode": True},
        {"sci_mode": False},
        {"profile": "short"},
    ],
)
@pytest.mark.parametrize(
    "values",
    [np.arange(24.0).reshape(2, 3, 4) * 1.25 - 3, np.geomspace(1e-3, 1e4, 12)],
    ids=["cube", "geom"],
)
def test_printoptions_match_torch(options, values):
    torch = pytest.importorskip("torch")
    try:
        torch.set_printoptions(**options)
        printing.set_printoptions(**options)
        assert _ours(values, D.float32, {}) == _torch_repr(torch, values, D.float32, {})
    finally:
        torch.set_printoptions(profile="default")


_SPECIAL = st.sampled_from([0.0, -0.0, NAN, INF, -INF, 1e-5, 1e9, 0.1, -1.0])
_ELEMENT = st.one_of(
    st.floats(-1e6, 1e6, width=32),
    st.floats(width=32, allow_nan=False, allow_infinity=False),
    st.integers(-1000, 1000).map(float),
    _SPECIAL,
)
_DTYPES = st.sampled_from([D.float32, D.float64, D.float16, D.int64, D.int32, D.bool_])


@st.composite
def _tensors(draw):
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5))
    if draw(st.booleans()):  # long rows exercise line wrapping
        shape = (*shape[:-1], draw(st.integers(6, 45))) if shape else (draw(st.integers(6, 45)),)
    dtype = draw(_DTYPES)
    values = draw(hnp.arrays(np.float64, shape, elements=_ELEMENT))
    if dtype.is_floating_point:
        with np.errstate(over="ignore"):
            return values.astype(dtype.np), dtype
    if dtype is D.bool_:
        return values > 0, dtype
    return np.clip(np.nan_to_num(values), -(10**6), 10**6).astype(np.int64).astype(dtype.np), dtype


@settings(max_examples=200, deadline=None)
@given(case=_tensors(), flag=st.sampled_from(FLAGS))
def test_random_tensors_match_torch(case, flag):
    torch = pytest.importorskip("torch")
    values, dtype = case
    flags = flag[1] if dtype.is_floating_point else {}
    with np.errstate(over="ignore", invalid="ignore"):
        assert _ours(values, dtype, flags) == _torch_repr(torch, values, dtype, flags)


@pytest.mark.parametrize("dims", [(), (0,), (3,), (2, 3), (1, 1, 4, 5)])
def test_size_matches_torch(dims):
    torch = pytest.importorskip("torch")
    ours, theirs = Size(dims), torch.Size(dims)
    assert (repr(ours), ours.numel()) == (repr(theirs), theirs.numel())
    assert repr(ours[1:]) == repr(theirs[1:])
    assert repr(ours + (7,)) == repr(theirs + (7,))
