"""torch.linalg on numpy's LAPACK: inv, det, slogdet, solve, cholesky, qr, eigh, svd,
svdvals, pinv (the norms built on them: ops/matnorm.py). Backward rules are torch's
(derivatives.yaml / FunctionsManual), written once for arrays and tensors: a rule calls the
helpers below with its kernel set `k`, which run numpy (`NP`) or this family's own
differentiable ops (create_graph). Decompositions with several outputs (slogdet's sign is
not differentiable; qr, eigh, svd) get one node for all outputs, as torch's, and a
forward-AD rule per output.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from detachviz.engine import state, trace
from detachviz.engine.function import apply
from detachviz.engine.node import MULTI, RESULT, Node, Saved, new_node, node_class, set_jvp
from detachviz.engine.ops.join import where
from detachviz.engine.ops.layout import diag_embed, diagonal, tril
from detachviz.engine.ops.reduce import return_type
from detachviz.engine.rules import NP, TT
from detachviz.engine.tensor import Tensor, edge, wrap

slogdet_type = return_type("slogdet", ("sign", "logabsdet"))
linalg_slogdet_type = return_type("linalg_slogdet", ("sign", "logabsdet"))
qr_type = return_type("linalg_qr", ("Q", "R"))
eigh_type = return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
svd_type = return_type("linalg_svd", ("U", "S", "Vh"))


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError (torch._C._LinAlgError): a matrix the algorithm cannot take."""


_LinAlgError.__module__ = "torch._C"
LinAlgError = _LinAlgError


# ------------------------------------------------------------------ helpers (NP or TT)


def _mT(k: Any, a: Any) -> Any:
    return np.swapaxes(a, -1, -2) if k is NP else a.mT


def _inv(k: Any, a: Any) -> Any:
    return np.linalg.inv(a) if k is NP else inv(a)


def _solve(k: Any, a: Any, b: Any) -> Any:
    return np.linalg.solve(a, b) if k is NP else solve(a, b)


def _diag(k: Any, v: Any) -> Any:
    """A batch of diagonal matrices from a batch of vectors."""
    if k is NP:
        n = v.shape[-1]
        return v[..., None] * np.eye(n, dtype=v.dtype)
    return diag_embed(v)


def _diagonal(k: Any, a: Any) -> Any:
    return np.diagonal(a, 0, -2, -1).copy() if k is NP else diagonal(a, 0, -2, -1)


def _row(k: Any, v: Any) -> Any:
    return v[..., None, :] if k is NP else v.unsqueeze(-2)


def _col(k: Any, v: Any) -> Any:
    return v[..., None] if k is NP else v.unsqueeze(-1)


def _tril(k: Any, a: Any, d: int = 0) -> Any:
    return np.tril(a, d) if k is NP else tril(a, d)


def _eye_like(k: Any, n: int, like: Any) -> Any:
    e = np.eye(n, dtype=np.asarray(k.data(like)).dtype)
    return e if k is NP else wrap(e)


def _square(name: str, x: Tensor) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"linalg_{name}(): argument 'A' (position 1) must be Tensor, not {type(x).__name__}"
        )
    d = x._data
    if d.ndim < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    if d.shape[-1] != d.shape[-2]:
        raise RuntimeError(
            f"linalg.{name}: A must be batches of square matrices, but they are "
            f"{d.shape[-2]} by {d.shape[-1]} matrices"
        )
    _floating(name, x)


def _floating(name: str, x: Tensor) -> None:
    if not x._dtype.is_floating_point:
        kind = x._dtype.legacy[: -len("Tensor")]
        raise RuntimeError(
            f"linalg.{name}: Expected a floating point or complex tensor as input. Got {kind}"
        )


def check_matrix(name: str, x: Tensor) -> None:
    if x._data.ndim < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    _floating(name, x)


class _OutputRule:
    """The forward-AD rule of one output of a multi-output decomposition, in the shape the
    forward-AD hook reads a node class (a whole-op rule over the input tangents)."""

    __slots__ = ("_Attrs", "_jvp", "_name")
    _jvp_view = False

    def __init__(self, cls: type[Node], rule: Any) -> None:
        self._name = cls._name
        self._jvp = rule
        self._Attrs = cls._Attrs


def _outputs(
    cls: type[Node],
    name: str,
    x: Tensor,
    datas: list[np.ndarray],
    make_attrs: Any,
) -> list[Tensor]:
    """The results of a multi-output op on x, sharing one `cls` node (output_nr 0, 1, ...);
    `make_attrs(outs)` gives the node's attributes (they may hold the outputs); the class's
    forward-AD rules are one whole-op rule per output."""
    outs = [wrap(np.array(d, order="C"), x._dtype) for d in datas]
    attrs = make_attrs(outs)
    if x._requires_grad and state.grad_enabled:
        node = new_node(cls, (edge(x),), attrs)
        node._shape = MULTI
        node._npd = tuple((d._data.shape, d._data.dtype) for d in outs)
        for nr, o in enumerate(outs):
            o._grad_fn = node
            o._output_nr = nr
            o._requires_grad = True
    if state.fw_hooks is not None:
        for o, rule in zip(outs, cls._jvp):
            state.fw_hooks.op(_OutputRule(cls, rule), (x,), o, attrs)  # type: ignore[arg-type]
    if trace.RECORDER is not None:
        trace.RECORDER.record(name, (x,), tuple(outs))
    return outs


def _slots(g: Any, n: int, at: int = 0) -> list[Any]:
    """The per-output gradients a multi-output node received (None where none arrived); a
    single-output use of the node (svdvals) gets its gradient at slot `at`."""
    if hasattr(g, "grads"):
        return list(g.grads) + [None] * (n - len(g.grads))
    out: list[Any] = [None] * n
    out[at] = g
    return out


def _u(a: Any) -> np.ndarray:
    return np.asarray(a._data if isinstance(a, Tensor) else a)


# ---------------------------------------------------------------------------------- inv

INV = node_class(
    "LinalgInvExBackward0",
    (lambda k, g, s, a: -(_mT(k, s[0]) @ g @ _mT(k, s[0])),),
    saved=(Saved("inverse", RESULT, (0,)),),
    jvp=(lambda t, p, o, a: -(o @ t @ o),),
)


def _getrf(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK getrf: LU with partial pivoting (first largest |pivot|), 0-based pivots."""
    lu: Any = np.array(m, dtype=np.float64 if m.dtype != np.float32 else np.float32)
    n = lu.shape[0]
    piv = np.zeros(min(lu.shape), dtype=np.int64)
    for j in range(min(lu.shape)):
        p = j + int(np.argmax(np.abs(lu[j:, j])))
        piv[j] = p
        if p != j:
            lu[[j, p]] = lu[[p, j]]
        if lu[j, j] != 0 and j + 1 < n:
            lu[j + 1 :, j] /= lu[j, j]
            lu[j + 1 :, j + 1 :] -= np.outer(lu[j + 1 :, j], lu[j, j + 1 :])
    return lu, piv


def _singular(name: str, d: np.ndarray) -> _LinAlgError:
    """torch's error for a singular matrix: the first zero pivot of U (1-based), with the
    batch element for a batch."""
    flat = d.reshape((-1,) + d.shape[-2:])
    for b, m in enumerate(flat):
        lu, _ = _getrf(m)
        zero = np.flatnonzero(np.diagonal(lu) == 0)
        if zero.size:
            where = f"(Batch element {b}): " if d.ndim > 2 else ""
            return _LinAlgError(
                f"linalg.{name}: {where}The diagonal element {zero[0] + 1} is zero, the "
                "inversion could not be completed because the input matrix is singular."
            )
    return _LinAlgError(f"linalg.{name}: The input matrix is singular.")


def _inverse_np(d: np.ndarray) -> np.ndarray:
    try:
        with np.errstate(all="ignore"):
            return np.linalg.inv(d)
    except np.linalg.LinAlgError:
        raise _singular("inv", d) from None


def inv(A: Tensor) -> Tensor:  # noqa: N803 - torch's name
    _square("inv", A)
    return apply(INV, "linalg_inv", (A,), _inverse_np(A._data), A._dtype)


# ------------------------------------------------------------------------- det / slogdet


def _det_grad_np(g: np.ndarray, a: np.ndarray, det: np.ndarray) -> np.ndarray:
    """g * adj(A)^T, exact also for singular A (via the SVD: adj(A)^T = det(U) det(Vh) U
    diag(prod_{j != i} s_j) Vh)."""
    u, s, vh = np.linalg.svd(a)
    n = s.shape[-1]
    prods = (
        np.stack([np.prod(np.delete(s, i, axis=-1), axis=-1) for i in range(n)], axis=-1)
        if n
        else s
    )
    sign = np.linalg.det(u) * np.linalg.det(vh)
    cof = (u * (prods * sign[..., None])[..., None, :]) @ vh
    return g[..., None, None] * cof  # type: ignore[no-any-return]


def _det_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    if k is NP:
        return _det_grad_np(g, s[0], s[1])
    return _col(k, _col(k, g * s[1])) * _mT(k, inv(s[0]))


DET = node_class(
    "LinalgDetBackward0",
    (_det_back,),
    saved=(Saved("A", 0, (0,)), Saved("result", RESULT, (0,))),
    attrs=("LU", "pivots"),
    jvp=(lambda t, p, o, a: o * np.einsum("...ij,...ji->...", np.linalg.inv(p[0]), t),),
)


def _lu(d: np.ndarray, transposed: bool) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK getrf's LU and 1-based int32 pivots (what torch saves)."""
    flat = d.reshape((-1,) + d.shape[-2:])
    lus, pivs = [], []
    for m in flat:
        # NOTE: torch's det/slogdet save the factors of A^T (A seen column-major), solve A's
        lu, piv = _getrf(m.T if transposed else m)
        lus.append(lu)
        pivs.append(piv.astype(np.int32) + 1)
    n = d.shape[-1]
    return (
        np.array(lus, dtype=d.dtype).reshape(d.shape),
        np.array(pivs, dtype=np.int32).reshape(d.shape[:-2] + (n,)),
    )


def _lu_saved(A: Tensor, transposed: bool = True) -> tuple[Tensor, Tensor]:  # noqa: N803
    """The LU factors and pivots torch's det/slogdet/solve save (only when grad flows)."""
    if not (A._requires_grad and state.grad_enabled):
        return wrap(np.zeros((0,), A._data.dtype), A._dtype), wrap(np.zeros((0,), np.int32))
    lu, piv = _lu(A._data, transposed)
    return wrap(lu, A._dtype), wrap(piv)


def det(A: Tensor) -> Tensor:  # noqa: N803
    _square("det", A)
    data = np.asarray(np.linalg.det(A._data), A._data.dtype)
    return apply(DET, "linalg_det", (A,), data, A._dtype, _lu_saved(A))


def _slogdet_backward(node: Node, g: Any, tensor_mode: bool) -> list[Any]:
    k = _kernels(tensor_mode)
    glog = _slots(g, 2)[1]
    if glog is None:
        return [None]
    a = _sv(k, node._attrs[0])
    return [_col(k, _col(k, glog)) * _mT(k, _inv(k, a))]


SLOGDET = node_class(
    "LinalgSlogdetBackward0",
    (None,),
    attrs=("A", "LU", "pivots", "sign"),
    custom=_slogdet_backward,
)


def _slogdet_jvp(which: int) -> Any:
    def rule(tans: list[Any], p: Any, out: Any, a: Any) -> Any:
        if tans[0] is None:
            return None
        if which == 0:
            return np.zeros_like(out)
        return np.einsum("...ij,...ji->...", np.linalg.inv(p[0]), tans[0])

    return rule


set_jvp(SLOGDET, (_slogdet_jvp(0), _slogdet_jvp(1)))  # one rule per output


def linalg_slogdet(A: Tensor) -> Any:  # noqa: N803
    _square("slogdet", A)
    sign, logabs = np.linalg.slogdet(A._data)
    dt = A._data.dtype
    outs = _outputs(
        SLOGDET,
        "linalg_slogdet",
        A,
        [np.asarray(sign, dt), np.asarray(logabs, dt)],
        lambda o: (A, *_lu_saved(A), o[0]),
    )
    return linalg_slogdet_type(*outs)


def slogdet(A: Tensor) -> Any:  # noqa: N803
    """torch.slogdet / Tensor.slogdet: linalg.slogdet under the older return type's name."""
    return slogdet_type(*linalg_slogdet(A))


def logdet(A: Tensor) -> Tensor:  # noqa: N803
    """log det A: torch's where(sign == -1, nan, logabsdet)."""
    sign, logabs = linalg_slogdet(A)
    nan = wrap(np.asarray(np.nan, logabs._data.dtype), logabs._dtype)
    return where(sign == -1, nan, logabs)  # type: ignore[no-any-return]


# -------------------------------------------------------------------------------- solve


def _is_vector_rhs(a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> bool:
    return len(b_shape) == 1 or (len(b_shape) == len(a_shape) - 1 and b_shape == a_shape[:-1])


def _vec(s: Any) -> bool:
    """Whether the solve was A x = b for vectors b (the saved A and result tell)."""
    return _is_vector_rhs(np.shape(_u(s[0])), np.shape(_u(s[1])))


def _solve_a(k: Any, g: Any, s: Any, a: Any) -> Any:
    gb = _solve(k, _mT(k, s[0]), _as_matrix(k, g, _vec(s)))
    x = _as_matrix(k, s[1], _vec(s))
    return -(gb @ _mT(k, x))


def _solve_b(k: Any, g: Any, s: Any, a: Any) -> Any:
    gb = _solve(k, _mT(k, s[0]), _as_matrix(k, g, _vec(s)))
    return gb[..., 0] if _vec(s) and k is NP else (gb.squeeze(-1) if _vec(s) else gb)


def _sv(k: Any, t: Any) -> Any:
    return _u(t) if k is NP else t


def _as_matrix(k: Any, b: Any, vector: bool) -> Any:
    if not vector:
        return b
    return b[..., None] if k is NP else b.unsqueeze(-1)


def _solve_jvp_a(t: Any, p: Any, o: Any, a: Any) -> Any:
    x = o[..., None] if _is_vector_rhs(p[0].shape, o.shape) else o
    r = np.linalg.solve(p[0], -(t @ x))
    return r[..., 0] if _is_vector_rhs(p[0].shape, o.shape) else r


def _solve_jvp_b(t: Any, p: Any, o: Any, a: Any) -> Any:
    r = np.linalg.solve(p[0], t[..., None] if _is_vector_rhs(p[0].shape, o.shape) else t)
    return r[..., 0] if _is_vector_rhs(p[0].shape, o.shape) else r


SOLVE = node_class(
    "LinalgSolveExBackward0",
    (_solve_a, _solve_b),
    saved=(Saved("A", 0, (0, 1)), Saved("result", RESULT, (0,))),
    attrs=("LU", "left", "pivots"),
    jvp=(_solve_jvp_a, _solve_jvp_b),
)


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:  # noqa: N803
    if not left:
        raise NotImplementedError("linalg.solve(left=False) is not supported by detachviz")
    _square("solve", A)
    if B._dtype is not A._dtype:
        raise RuntimeError(
            f"linalg.solve: Expected A and B to have the same dtype, but found "
            f"A of type {A._dtype.name.capitalize()} and B of type "
            f"{B._dtype.name.capitalize()} instead"
        )
    vector = _is_vector_rhs(A._data.shape, B._data.shape)
    bd = B._data[..., None] if vector else B._data
    try:
        xd = np.linalg.solve(A._data, bd)
    except np.linalg.LinAlgError:
        raise RuntimeError(
            "torch.linalg.solve: The solver failed because the input matrix is singular."
        ) from None
    except ValueError as e:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B ({e})") from None
    xd = xd[..., 0] if vector else xd
    lu, piv = _lu_saved(A, transposed=False)
    attrs = (lu, True, piv)
    return apply(SOLVE, "linalg_solve", (A, B), xd, A._dtype, attrs)


# ----------------------------------------------------------------------------- cholesky


def _cholesky_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    big_l = s[0]
    if a.upper:
        big_l, g = _mT(k, big_l), _mT(k, g)
    ga = _tril(k, _mT(k, big_l) @ g)
    ga = 0.5 * (ga + _mT(k, _tril(k, ga, -1)))
    linv = _inv(k, big_l)
    return _mT(k, linv) @ ga @ linv


def _cholesky_jvp(t: Any, p: Any, o: Any, a: Any) -> Any:
    big_l = np.swapaxes(o, -1, -2) if a.upper else o
    linv = np.linalg.inv(big_l)
    phi = linv @ t @ np.swapaxes(linv, -1, -2)
    phi = np.tril(phi, -1) + 0.5 * np.diagonal(phi, 0, -2, -1)[..., None] * np.eye(
        phi.shape[-1], dtype=phi.dtype
    )
    dl = big_l @ phi
    return np.swapaxes(dl, -1, -2) if a.upper else dl


CHOLESKY = node_class(
    "LinalgCholeskyExBackward0",
    (_cholesky_back,),
    saved=(Saved("L", RESULT, (0,)),),
    attrs=("upper",),
    jvp=(_cholesky_jvp,),
)


def _not_positive_definite(d: np.ndarray) -> _LinAlgError:
    m = d.reshape((-1,) + d.shape[-2:])
    for b, a in enumerate(m):
        for order in range(1, a.shape[-1] + 1):
            try:
                np.linalg.cholesky(a[:order, :order])
            except np.linalg.LinAlgError:
                where = f"(Batch element {b}): " if d.ndim > 2 else ""
                return _LinAlgError(
                    f"linalg.cholesky: {where}The factorization could not be completed because "
                    f"the input is not positive-definite (the leading minor of order {order} is "
                    "not positive-definite)."
                )
    return _LinAlgError("linalg.cholesky: The input is not positive-definite.")


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:  # noqa: N803
    _square("cholesky", A)
    try:
        low = np.linalg.cholesky(A._data)
    except np.linalg.LinAlgError:
        raise _not_positive_definite(A._data) from None
    data = np.swapaxes(low, -1, -2).copy() if upper else low
    return apply(CHOLESKY, "linalg_cholesky", (A,), data, A._dtype, (upper,))


# ----------------------------------------------------------------------------------- qr


def _qr_backward(node: Node, g: Any, tensor_mode: bool) -> list[Any]:
    k = _kernels(tensor_mode)
    gq, gr = _slots(g, 2)
    q, r = (_sv(k, t) for t in (node._attrs[1], node._attrs[2]))
    m, n = np.shape(k.data(q))[-2], np.shape(k.data(r))[-1]
    if m < n:
        raise NotImplementedError(
            "detachviz: the backward of linalg.qr of a wide matrix (m < n) is not supported"
        )
    gq = 0 * q if gq is None else gq
    gr = 0 * r if gr is None else gr
    mm = r @ _mT(k, gr) - _mT(k, gq) @ q
    low = _tril(k, mm, -1)
    sym = low + _mT(k, low) + _diag(k, _diagonal(k, mm))
    b = gq + q @ sym
    return [b @ _mT(k, _inv(k, r))]


def _kernels(tensor_mode: bool) -> Any:
    return TT if tensor_mode else NP


QR = node_class("LinalgQrBackward0", (None,), attrs=("mode", "Q", "R"), custom=_qr_backward)


def _qr_jvp(which: int) -> Any:
    def rule(tans: list[Any], p: Any, out: Any, a: Any) -> Any:
        t = tans[0]
        if t is None:
            return None
        q, r = _u(a.Q), _u(a.R)
        rinv = np.linalg.inv(r)
        b = np.swapaxes(q, -1, -2) @ t @ rinv
        low = np.tril(b, -1)
        omega = low - np.swapaxes(low, -1, -2)
        dr = (b - omega) @ r
        if which == 1:
            return dr
        return t @ rinv - q @ dr @ rinv

    return rule


set_jvp(QR, (_qr_jvp(0), _qr_jvp(1)))  # one rule per output


def qr(A: Tensor, mode: str = "reduced") -> Any:  # noqa: N803
    check_matrix("qr", A)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    if mode == "complete" and A._data.shape[-2] > A._data.shape[-1]:
        raise NotImplementedError("detachviz: linalg.qr(mode='complete') of a tall matrix")
    q, r = np.linalg.qr(A._data, mode="reduced")
    outs = _outputs(
        QR,
        "linalg_qr",
        A,
        [q, r],
        lambda o: (mode, o[0], o[1]),
    )
    if mode == "r":
        return qr_type(wrap(np.zeros((0,), A._data.dtype), A._dtype), outs[1])
    return qr_type(*outs)


# --------------------------------------------------------------------------------- eigh


def _eigh_backward(node: Node, g: Any, tensor_mode: bool) -> list[Any]:
    k = _kernels(tensor_mode)
    gl, gv = _slots(g, 2)
    lam, v = (_sv(k, t) for t in (node._attrs[0], node._attrs[1]))
    if gv is None:
        inner = _diag(k, gl)
    else:
        vhgv = _mT(k, v) @ gv
        vhgv = 0.5 * (vhgv - _mT(k, vhgv))
        e = _row(k, lam) - _col(k, lam)
        n = np.shape(k.data(lam))[-1]
        eye = _eye_like(k, n, lam)
        inner = vhgv / (e + eye)
        if gl is not None:
            inner = inner + _diag(k, gl)
    return [v @ inner @ _mT(k, v)]


EIGH = node_class(
    "LinalgEighBackward0",
    (None,),
    attrs=("eigenvalues", "eigenvectors"),
    custom=_eigh_backward,
)


def _eigh_jvp(which: int) -> Any:
    def rule(tans: list[Any], p: Any, out: Any, a: Any) -> Any:
        t = tans[0]
        if t is None:
            return None
        lam, v = _u(a.eigenvalues), _u(a.eigenvectors)
        vtv = np.swapaxes(v, -1, -2) @ t @ v
        if which == 0:
            return np.diagonal(vtv, 0, -2, -1).copy()
        e = lam[..., None, :] - lam[..., :, None]
        n = lam.shape[-1]
        f = np.where(np.eye(n, dtype=bool), 0.0, 1.0 / np.where(np.eye(n, dtype=bool), 1.0, e))
        return v @ (f * vtv)

    return rule


set_jvp(EIGH, (_eigh_jvp(0), _eigh_jvp(1)))  # one rule per output


def eigh(A: Tensor, UPLO: str = "L") -> Any:  # noqa: N803
    _square("eigh", A)
    lam, v = np.linalg.eigh(A._data, UPLO=UPLO)  # type: ignore[call-overload]
    outs = _outputs(
        EIGH,
        "linalg_eigh",
        A,
        [lam, v],
        lambda o: (o[0], o[1]),
    )
    return eigh_type(*outs)


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:  # noqa: N803
    return eigh(A, UPLO).eigenvalues  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------------- svd


def _svd_backward(node: Node, g: Any, tensor_mode: bool) -> list[Any]:
    k = _kernels(tensor_mode)
    full, u_t, s_t, vh_t = node._attrs[:4]
    gu, gs, gvh = _slots(g, 3)
    u, s, vh = (_sv(k, t) for t in (u_t, s_t, vh_t))
    kk = np.shape(k.data(s))[-1]
    if full:
        u, vh = u[..., :, :kk], vh[..., :kk, :]
        gu = None if gu is None else gu[..., :, :kk]
        gvh = None if gvh is None else gvh[..., :kk, :]
    m, n = np.shape(k.data(u))[-2], np.shape(k.data(vh))[-1]
    if gu is None and gvh is None:
        return [(u * _row(k, gs)) @ vh]
    v = _mT(k, vh)
    gv = None if gvh is None else _mT(k, gvh)
    s2 = s * s
    eye = _eye_like(k, kk, s)
    e = _row(k, s2) - _col(k, s2) + eye
    ga: Any = 0
    if gu is not None:
        uhgu = _mT(k, u) @ gu
        ga = (uhgu - _mT(k, uhgu)) * _row(k, s)
    if gv is not None:
        vhgv = vh @ gv
        ga = ga + _col(k, s) * (vhgv - _mT(k, vhgv))
    ga = ga / e
    if gs is not None:
        ga = ga + _diag(k, gs)
    if m > n and gu is not None:
        ga = u @ ga
        gusinv = gu / _row(k, s)
        ga = ga + gusinv - u @ (_mT(k, u) @ gusinv)
        ga = ga @ vh
    elif m < n and gv is not None:
        ga = ga @ vh
        sinvgvh = _mT(k, gv) / _col(k, s)
        ga = ga + sinvgvh - (sinvgvh @ v) @ vh
        ga = u @ ga
    else:
        ga = u @ ga @ vh
    return [ga]


SVD = node_class(
    "LinalgSvdBackward0",
    (None,),
    attrs=("full_matrices", "U", "S", "Vh", "S_sym_argsize_minus_1"),
    custom=_svd_backward,
)


def _svd_tangents(t: np.ndarray, u: np.ndarray, s: np.ndarray, vh: np.ndarray) -> Any:
    """(dU, dS, dVh) of the thin SVD for a tangent t (m >= n; wide matrices transpose)."""
    m, n = t.shape[-2], t.shape[-1]
    if m < n:
        dv, ds, du = _svd_tangents(
            np.swapaxes(t, -1, -2), np.swapaxes(vh, -1, -2), s, np.swapaxes(u, -1, -2)
        )
        return np.swapaxes(du, -1, -2), ds, np.swapaxes(dv, -1, -2)
    v = np.swapaxes(vh, -1, -2)
    dp = np.swapaxes(u, -1, -2) @ t @ v
    ds = np.diagonal(dp, 0, -2, -1).copy()
    kk = s.shape[-1]
    off = ~np.eye(kk, dtype=bool)
    e = s[..., None, :] ** 2 - s[..., :, None] ** 2
    f = np.where(off, 1.0 / np.where(off, e, 1.0), 0.0)
    sm = s[..., None, :]
    dpt = np.swapaxes(dp, -1, -2)
    du = u @ (f * (dp * sm + s[..., :, None] * dpt))
    du = du + (t @ v - u @ dp) / sm
    dv = v @ (f * (s[..., :, None] * dp + dpt * sm))
    return du, ds, np.swapaxes(dv, -1, -2)


def _svd_jvp(which: int) -> Any:
    def rule(tans: list[Any], p: Any, out: Any, a: Any) -> Any:
        t = tans[0]
        if t is None:
            return None
        u, s, vh = _u(a.U), _u(a.S), _u(a.Vh)
        kk = s.shape[-1]
        if a.full_matrices and which != 1:
            raise NotImplementedError(
                "detachviz: forward AD of linalg.svd(full_matrices=True) singular vectors"
            )
        return _svd_tangents(t, u[..., :, :kk], s, vh[..., :kk, :])[which]

    return rule


set_jvp(SVD, (_svd_jvp(0), _svd_jvp(1), _svd_jvp(2)))  # one rule per output


def svd(A: Tensor, full_matrices: bool = True, *, driver: Any = None) -> Any:  # noqa: N803
    check_matrix("svd", A)
    if driver is not None:
        raise NotImplementedError("linalg.svd(driver=...) is not supported by detachviz")
    u, s, vh = np.linalg.svd(A._data, full_matrices=full_matrices)
    kk = s.shape[-1]
    outs = _outputs(
        SVD,
        "linalg_svd",
        A,
        [u, s, vh],
        lambda o: (full_matrices, o[0], o[1], o[2], kk),
    )
    return svd_type(*outs)


def svdvals(A: Tensor, *, driver: Any = None) -> Tensor:  # noqa: N803
    check_matrix("svdvals", A)
    if A._requires_grad and state.grad_enabled or state.fw_hooks is not None:
        return svd(A, full_matrices=False).S  # type: ignore[no-any-return]
    s = np.linalg.svd(A._data, compute_uv=False)
    return apply(None, "linalg_svdvals", (A,), s, A._dtype)


# --------------------------------------------------------------------------------- pinv


def _pinv_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    p, big_a = s
    m, n = np.shape(k.data(big_a))[-2:]
    ph, gh = _mT(k, p), _mT(k, g)
    if m <= n:
        kk = gh @ p
        kph = kk @ ph
        return -_mT(k, p @ kk) + kph - (big_a @ p) @ kph + (ph @ p) @ (gh - kk @ big_a)
    kk = p @ gh
    phk = ph @ kk
    return -_mT(k, kk @ p) + (gh - big_a @ kk) @ p @ ph + phk - phk @ p @ big_a


def _pinv_jvp(t: Any, p_: Any, o: Any, a: Any) -> Any:
    big_a, p = p_[0], o
    m, n = big_a.shape[-2:]
    pt, tt = np.swapaxes(p, -1, -2), np.swapaxes(t, -1, -2)
    im, in_ = np.eye(m, dtype=o.dtype), np.eye(n, dtype=o.dtype)
    return -p @ t @ p + p @ pt @ tt @ (im - big_a @ p) + (in_ - p @ big_a) @ tt @ pt @ p


PINV = node_class(
    "LinalgPinvBackward0",
    (_pinv_back,),
    saved=(Saved("result", RESULT, (0,)), Saved("self", 0, (0,))),
    jvp=(_pinv_jvp,),
)


def pinv(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Tensor:  # noqa: N803
    check_matrix("pinv", A)
    if atol is not None or hermitian:
        raise NotImplementedError("linalg.pinv(atol=, hermitian=) is not supported by detachviz")
    d = A._data
    if rtol is None:
        rtol = max(d.shape[-2:]) * np.finfo(d.dtype).eps
    data = np.linalg.pinv(d, rcond=rtol).astype(d.dtype)
    return apply(PINV, "linalg_pinv", (A,), data, A._dtype)
