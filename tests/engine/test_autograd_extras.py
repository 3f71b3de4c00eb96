"""autograd.functional, gradcheck, torch.func, saved-tensor and multi-grad hooks, inference
mode and devices: values against finite differences (and against torch where installed),
structures and errors as torch gives them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import detachviz.torch as dv
from detachviz.engine import func as tfunc
from detachviz.engine import graph_hooks as graph
from detachviz.engine import jacobian as AF
from detachviz.engine.gradcheck import GradcheckError, gradcheck, gradgradcheck

X0 = np.array([0.3, -1.2, 2.0])


def f_vec(x):
    return (x.sin() * x.exp()).reshape(3)[:2] * x[2]


def f_scalar(x):
    return (x**3).sum() + x[0] * x[1] * x[2]


def _fd_jacobian(fn, x, eps=1e-6):
    """Central-difference Jacobian of fn (numpy in, numpy out)."""
    cols = []
    for j in range(x.size):
        e = np.zeros_like(x)
        e[j] = eps
        cols.append((fn(x + e) - fn(x - e)) / (2 * eps))
    return np.stack(cols, -1)


def _np(fn):
    return lambda a: fn(dv.tensor(a, dtype=dv.float64)).detach().numpy()


def test_jacobian_matches_finite_differences() -> None:
    x = dv.tensor(X0, dtype=dv.float64)
    J = AF.jacobian(f_vec, x)
    assert tuple(J.shape) == (2, 3) and not J.requires_grad
    np.testing.assert_allclose(J.numpy(), _fd_jacobian(_np(f_vec), X0), atol=1e-8)


def test_jacobian_structures_follow_the_tuples() -> None:
    a, b = dv.ones(2), dv.ones(3)
    single = AF.jacobian(lambda a, b: a.sum() * b, (a, b))
    assert isinstance(single, tuple) and [tuple(t.shape) for t in single] == [(3, 2), (3, 3)]
    both = AF.jacobian(lambda a, b: (a * 2, b.sum()), (a, b))
    assert [[tuple(t.shape) for t in row] for row in both] == [[(2, 2), (2, 3)], [(2,), (3,)]]
    assert both[0][1].abs().sum().item() == 0  # independent: zeros, not None


def test_hessian_and_products_agree() -> None:
    x = dv.tensor(X0, dtype=dv.float64)
    v = dv.tensor([1.0, -0.5, 2.0], dtype=dv.float64)
    H = AF.hessian(f_scalar, x)
    grad_np = _np(lambda t: AF.vjp(f_scalar, t)[1])
    np.testing.assert_allclose(H.numpy(), _fd_jacobian(grad_np, X0), atol=1e-6)
    np.testing.assert_allclose(AF.hvp(f_scalar, x, v)[1].numpy(), H.numpy() @ v.numpy())
    np.testing.assert_allclose(AF.vhp(f_scalar, x, v)[1].numpy(), v.numpy() @ H.numpy())
    J = AF.jacobian(f_vec, x)
    np.testing.assert_allclose(AF.jvp(f_vec, x, v)[1].numpy(), J.numpy() @ v.numpy())
    u = dv.tensor([1.0, 3.0], dtype=dv.float64)
    np.testing.assert_allclose(AF.vjp(f_vec, x, u)[1].numpy(), u.numpy() @ J.numpy())


def test_strict_mode_and_bad_arguments_raise_torchs_errors() -> None:
    x = dv.ones(2)
    with pytest.raises(RuntimeError, match="independent of input 1"):
        AF.jacobian(lambda a, b: a * 2, (x, x.clone()), strict=True)
    with pytest.raises(RuntimeError, match="can only be None if the user-provided function"):
        AF.vjp(lambda a: a * 2, x)
    with pytest.raises(TypeError, match="given inputs has type <class 'list'>"):
        AF.vjp(lambda a: a.sum(), [1.0])
    with pytest.raises(NotImplementedError, match="vectorize=True"):
        AF.jacobian(lambda a: a, x, vectorize=True)


class _Cube(dv.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x**2 * g


class _WrongCube(_Cube):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x**2 * g


def test_gradcheck_passes_a_right_backward_and_fails_a_wrong_one() -> None:
    x = dv.tensor([0.5, -1.0, 2.0], dtype=dv.float64, requires_grad=True)
    assert gradcheck(_Cube.apply, (x,)) is True
    assert gradgradcheck(_Cube.apply, (x,)) is True
    assert gradcheck(_WrongCube.apply, (x,), raise_exception=False) is False
    with pytest.raises(GradcheckError, match="^Jacobian mismatch for output 0 with respect"):
        gradcheck(_WrongCube.apply, (x,))
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(_Cube.apply, (x.detach(),))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        gradcheck(_Cube.apply, (dv.ones(2, requires_grad=True),), raise_exception=False)
    assert any("not a double precision" in str(m.message) for m in w)
    with pytest.raises(NotImplementedError, match="fast_mode=True"):
        gradcheck(_Cube.apply, (x,), fast_mode=True)


def test_func_transforms_agree_with_autograd() -> None:
    x = dv.tensor(X0, dtype=dv.float64)
    xr = x.clone().requires_grad_(True)
    (g,) = dv.autograd.grad(f_scalar(xr), xr)
    np.testing.assert_allclose(tfunc.grad(f_scalar)(x).numpy(), g.numpy())
    gv, value = tfunc.grad_and_value(f_scalar)(x)
    assert value.item() == pytest.approx(f_scalar(x).item())
    np.testing.assert_allclose(tfunc.jacfwd(f_vec)(x).numpy(), tfunc.jacrev(f_vec)(x).numpy())
    np.testing.assert_allclose(
        tfunc.hessian(f_scalar)(x).numpy(), AF.hessian(f_scalar, x).numpy(), atol=1e-12
    )
    # nested: the second derivative of sin is -sin
    d2 = tfunc.grad(tfunc.grad(lambda t: t.sin()))(dv.tensor(0.7, dtype=dv.float64))
    assert d2.item() == pytest.approx(-np.sin(0.7))


def test_vmap_of_grad_is_the_per_sample_loop() -> None:
    w = dv.tensor([0.5, -0.25], dtype=dv.float64)
    xs = dv.tensor([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]], dtype=dv.float64)

    def loss(w, x):
        return ((w * x).sum() - 1.0) ** 2

    batched = tfunc.vmap(tfunc.grad(loss), in_dims=(None, 0))(w, xs)
    looped = dv.stack([tfunc.grad(loss)(w, xs[i]) for i in range(3)])
    np.testing.assert_allclose(batched.numpy(), looped.numpy())
    assert tuple(tfunc.vmap(lambda r: r * 2, out_dims=1)(xs).shape) == (2, 3)


def test_functional_call_substitutes_and_restores() -> None:
    model = dv.nn.Linear(2, 1)
    before = model.weight.detach().clone()
    out = tfunc.functional_call(
        model, {"weight": dv.zeros(1, 2), "bias": dv.ones(1)}, (dv.ones(3, 2),)
    )
    assert out.tolist() == [[1.0], [1.0], [1.0]]
    assert dv.equal(model.weight.detach(), before)
    with pytest.raises(RuntimeError, match="Missing key\\(s\\): 'weight'"):
        tfunc.functional_call(model, {"bias": dv.ones(1)}, (dv.ones(1, 2),), strict=True)


def test_saved_tensors_hooks_pack_what_nodes_save_and_unpack_in_backward() -> None:
    log = []
    a = dv.ones(2, 3, requires_grad=True)
    b = dv.ones(3, 4, requires_grad=True)
    with graph.saved_tensors_hooks(
        lambda t: (log.append(("pack", tuple(t.shape))), t)[1],
        lambda t: (log.append(("unpack", tuple(t.shape))), t)[1],
    ):
        y = (a @ b).exp().sum()
    # mm saves mat2 then self (torch's order); exp saves its result
    assert log == [("pack", (3, 4)), ("pack", (2, 3)), ("pack", (2, 4))]
    y.backward()
    assert [e for e in log if e[0] == "unpack"] == [
        ("unpack", (2, 4)),
        ("unpack", (3, 4)),
        ("unpack", (2, 3)),
    ]
    x = dv.ones(3, requires_grad=True)
    with graph.saved_tensors_hooks(lambda t: None, lambda p: dv.full((3,), 5.0)):
        q = x * x
    q.sum().backward()
    assert x.grad.tolist() == [10.0, 10.0, 10.0]  # both saved operands unpacked as 5


def test_raw_saved_hooks_and_disabling() -> None:
    x = dv.tensor([1.0, 2.0], requires_grad=True)
    y = x.pow(2)
    y.grad_fn._raw_saved_self.register_hooks(lambda t: t * 10, lambda t: t / 10)
    with pytest.raises(RuntimeError, match="hooks have already been set"):
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]
    with graph.disable_saved_tensors_hooks("not here"):
        with pytest.raises(RuntimeError, match="^not here$"):
            with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass


def test_multi_grad_hook_all_and_any() -> None:
    a = dv.tensor([1.0, 2.0], requires_grad=True)
    b = dv.tensor([3.0], requires_grad=True)
    seen, first = [], []
    h = graph.register_multi_grad_hook((a, b), lambda gs: seen.append([g.tolist() for g in gs]))
    graph.register_multi_grad_hook((a, b), lambda g: first.append(g.tolist()), mode="any")
    (a.sum() * b.sum()).backward()
    (a.sum() * b.sum()).backward()
    assert seen == [[[3.0, 3.0], [3.0]], [[3.0, 3.0], [3.0]]]
    assert len(first) == 2  # once per backward pass
    h.remove()
    (a.sum() * b.sum()).backward()
    assert len(seen) == 2


def test_inference_tensors_refuse_what_torch_refuses() -> None:
    w = dv.ones(2, requires_grad=True)
    with dv.inference_mode():
        y = w * 2
    assert y.is_inference() and y.detach().is_inference() and y[0].is_inference()
    for fn, msg in [
        (lambda: y._version, "do not track version counter"),
        (lambda: y.add_(1), "Inplace update to inference tensor outside InferenceMode"),
        (lambda: y.__setitem__(0, 1.0), "Inplace update to inference tensor"),
        (lambda: y.requires_grad_(), "Setting requires_grad=True on inference tensor"),
    ]:
        with pytest.raises(RuntimeError, match=msg):
            fn()
    assert not y.clone().is_inference()


def test_devices_are_cpu_only() -> None:
    assert dv.device("cpu") != "cpu" and dv.device("cpu") == dv.device("cpu")
    assert repr(dv.device("cuda", 1)) == "device(type='cuda', index=1)"
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
        dv.ones(1).cuda()
    with pytest.raises(AssertionError, match="CUDA"):
        dv.zeros(2, device="cuda:0")
    with pytest.raises(RuntimeError, match="not linked with support for mps"):
        dv.ones(1).to("mps")
    with pytest.raises(TypeError, match="got \\(requires_grad=bool, \\)"):
        dv.ones(1).to(requires_grad=True)
    assert not dv.cuda.is_available() and dv.accelerator.current_accelerator() is None
    with pytest.raises(AttributeError, match="^torch.cuda.nccl is not supported by detachviz$"):
        dv.cuda.nccl  # noqa: B018


def test_module_refuses_torch_names_but_keeps_torchs_message_for_others() -> None:
    class Net(dv.nn.Module):
        pass

    with pytest.raises(AttributeError, match="^'Net' object has no attribute 'wings'$"):
        Net().wings  # noqa: B018
    missing = sorted(
        n for n in __import__("detachviz.nn.module_api").nn.module_api.TORCH_MODULE_API
        if not hasattr(Net(), n)
    )  # fmt: skip
    if missing:
        with pytest.raises(AttributeError, match=f"^torch.nn.Module.{missing[0]} is not"):
            getattr(Net(), missing[0])
