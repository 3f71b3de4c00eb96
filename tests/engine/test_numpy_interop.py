"""Tensors and numpy arrays in one expression, as torch does it.

torch's operators answer NotImplemented to an ndarray, so with the array on the right Python
asks ndarray's reflected operator: numpy computes on `Tensor.__array__` (refused when the
tensor requires grad) with numpy's promotion and `Tensor.__array_wrap__` makes the result a
tensor without history. With the array on the left numpy defers to `__array_priority__` and
the op is a TypeError, except `/` (torch's __rtruediv__ is reciprocal() * other) and `==`
(which takes the array as a tensor). numpy scalars are parsed like python numbers.
Every case is run under detachviz and real torch and must end the same way.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np
import pytest

OPS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "**": operator.pow,
    "@": operator.matmul,
    "//": operator.floordiv,
    "%": operator.mod,
    "<": operator.lt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}

ARRAYS = {
    "f64": lambda: np.array([1.0, 2.0, 3.0]),
    "f32": lambda: np.array([1.0, 2.0, 3.0], dtype=np.float32),
    "i32": lambda: np.array([1, 2, 3], dtype=np.int32),
    "0-d": lambda: np.array(2.0),
}

SCALARS = {
    "np.float64": lambda: np.float64(2.0),
    "np.float32": lambda: np.float32(2.0),
    "np.float16": lambda: np.float16(2.0),
    "np.int64": lambda: np.int64(2),
    "np.int8": lambda: np.int8(2),
    "np.bool_": lambda: np.bool_(True),
}


def _outcome(f: Any) -> tuple[Any, ...]:
    """What a user sees: the result's kind, dtype, requires_grad, values; or the error."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's outdated __array_wrap__ makes numpy warn
        try:
            r = f()
        except (TypeError, RuntimeError) as e:
            return ("raises", TypeError if isinstance(e, TypeError) else RuntimeError, str(e))
    if isinstance(r, bool):
        return ("bool", r)
    assert type(r).__name__ == "Tensor", type(r)
    return ("Tensor", str(r.dtype), r.requires_grad, tuple(r.shape), r.detach().tolist())


def _same(dv_out: tuple[Any, ...], rt_out: tuple[Any, ...], exact_message: bool = True) -> None:
    if rt_out[0] == "raises" and not exact_message:
        # torch's argument parser names the argument's position; we do not
        assert dv_out[:2] == rt_out[:2], (dv_out, rt_out)
        return
    assert dv_out == rt_out


def _tensors(lib: Any) -> dict[str, Any]:
    return {
        "float": lib.arange(3.0),
        "int": lib.arange(1, 4),
        "grad": lib.arange(1.0, 4.0, requires_grad=True),
        "double": lib.arange(3.0, dtype=lib.float64),
    }


@pytest.mark.parametrize("side", ["tensor op array", "array op tensor"])
@pytest.mark.parametrize("arr", sorted(ARRAYS))
@pytest.mark.parametrize("kind", ["float", "int", "grad", "double"])
@pytest.mark.parametrize("op", sorted(OPS))
def test_operators_with_arrays_match_torch(dv, rt, op, kind, arr, side):
    def run(lib: Any) -> tuple[Any, ...]:
        t, a = _tensors(lib)[kind], ARRAYS[arr]()
        if op == "@" and arr == "0-d":
            a = np.array([1.0, 2.0, 3.0])
        fn = OPS[op]
        return _outcome(lambda: fn(t, a) if side == "tensor op array" else fn(a, t))

    _same(run(dv), run(rt))


@pytest.mark.parametrize("side", ["tensor op scalar", "scalar op tensor"])
@pytest.mark.parametrize("scalar", sorted(SCALARS))
@pytest.mark.parametrize("kind", ["float", "int", "grad", "double"])
@pytest.mark.parametrize("op", ["+", "-", "*", "/", "==", "<"])
def test_numpy_scalars_join_like_python_numbers(dv, rt, op, kind, scalar, side):
    def run(lib: Any) -> tuple[Any, ...]:
        t, s = _tensors(lib)[kind], SCALARS[scalar]()
        fn = OPS[op]
        return _outcome(lambda: fn(t, s) if side == "tensor op scalar" else fn(s, t))

    _same(run(dv), run(rt))


def test_the_issue_example(dv):
    # the report of issue 11: this raised "unsupported operand type: ndarray"
    r = dv.arange(3.0) * np.array([1.0, 2.0, 3.0])
    assert r.dtype is dv.float64 and r.tolist() == [0.0, 2.0, 6.0]
    assert r.grad_fn is None and not r.requires_grad
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \*"):
        np.array([1.0, 2.0, 3.0]) * dv.arange(3.0)


def test_an_array_on_the_right_refuses_a_tensor_that_requires_grad(dv):
    w = dv.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        w * np.ones(3)
    # detached, it computes in numpy, float64 as numpy promotes float32 with float64
    assert (w.detach() * np.ones(3)).dtype is dv.float64


def test_numpy_scalar_gradient_matches_torch_and_finite_differences(dv, rt):
    def grad(lib: Any) -> list[float]:
        w = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        (np.float64(3.0) * w * w / np.int64(2) - np.float32(0.5) * w).sum().backward()
        return w.grad.tolist()

    x = np.array([0.5, -1.0, 2.0])
    eps = 1e-6
    fd = [
        ((3 * (x + eps * e) ** 2 / 2 - 0.5 * (x + eps * e)).sum() - (3 * x**2 / 2 - 0.5 * x).sum())
        / eps
        for e in np.eye(3)
    ]
    assert grad(dv) == pytest.approx(grad(rt))
    assert grad(dv) == pytest.approx(fd, abs=1e-4)


@pytest.mark.parametrize(
    "expr",
    [
        "torch.add(t, a)",
        "t.add(a)",
        "t.mul(a)",
        "torch.mul(t, a)",
        "t.pow(a)",
        "t.lt(a)",
        "t.add_(a)",
    ],
)
def test_functions_and_methods_take_no_arrays(dv, rt, expr):
    def run(lib: Any) -> tuple[Any, ...]:
        env = {"torch": lib, "t": lib.arange(3.0), "a": np.array([1.0, 2.0, 3.0])}
        return _outcome(lambda: eval(expr, env))

    _same(run(dv), run(rt), exact_message=False)


def test_inplace_operator_with_an_array_rebinds_to_a_new_tensor(dv, rt):
    def run(lib: Any) -> tuple[Any, ...]:
        t = lib.arange(3.0)
        u = t
        u += np.array([1.0, 2.0, 3.0])
        return (u is t, str(u.dtype), u.tolist(), t.tolist())

    assert run(dv) == run(rt) == (False, "torch.float64", [1.0, 3.0, 5.0], [0.0, 1.0, 2.0])


@pytest.mark.parametrize(
    "expr",
    [
        "np.exp(t)",
        "np.add(t, 1)",
        "np.multiply(a, t)",
        "np.greater(t, 1.0)",
        "np.exp(torch.tensor(2.0))",
        "np.asarray(w)",
        "np.asarray(t, dtype=np.float64)",
    ],
)
def test_ufuncs_over_tensors_wrap_like_torch(dv, rt, expr):
    def run(lib: Any) -> tuple[Any, ...]:
        env = {
            "torch": lib,
            "np": np,
            "t": lib.arange(3.0),
            "w": lib.ones(2, requires_grad=True),
            "a": np.array([1.0, 2.0, 3.0]),
        }
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                r = eval(expr, env)
            except RuntimeError as e:
                return ("raises", str(e))
        if isinstance(r, np.ndarray):
            return ("ndarray", str(r.dtype), r.tolist())
        return ("Tensor", str(r.dtype), tuple(r.shape), r.tolist())

    assert run(dv) == run(rt)


@pytest.mark.parametrize("fn", ["tensor", "as_tensor", "from_numpy"])
@pytest.mark.parametrize("npdt", ["float64", "float32", "int32", "uint8", "bool"])
def test_tensors_from_arrays_keep_dtype_and_sharing(dv, rt, fn, npdt):
    def run(lib: Any) -> tuple[Any, ...]:
        a = np.array([1, 0, 1], dtype=npdt)
        t = getattr(lib, fn)(a)
        a[0] = 0
        return (str(t.dtype), t.tolist())

    assert run(dv) == run(rt)


def test_from_numpy_takes_only_arrays(dv, rt):
    for lib in (dv, rt):
        with pytest.raises(TypeError, match=r"expected np.ndarray \(got list\)"):
            lib.from_numpy([1.0])
