"""torch.optim.LBFGS: limited-memory BFGS over all parameters as one flat vector, with
torch's fixed-step mode (line_search_fn=None) and its strong-Wolfe line search (cubic
interpolation, bracketing then zoom). Each tensor op is the one torch's implementation makes,
in the same order, so the iterates follow torch's; the scalars it keeps as 0-dim tensors
(`ys`, `ro`, `H_diag`, the first step `t`) stay tensors here too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from detachviz import torch as T
from detachviz.optim import kernels as K
from detachviz.optim.optimizer import Optimizer, Tensor, check_range


def _cubic_min(
    x1: Any, f1: Any, g1: Any, x2: Any, f2: Any, g2: Any, bounds: tuple[Any, Any] | None = None
) -> Any:
    """The minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clamped to bounds
    (default: the interval); the interval's middle when the cubic has no minimum."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square < 0:
        return (lo + hi) / 2.0
    d2 = d2_square.sqrt()
    if x1 <= x2:
        at = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        at = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(at, lo), hi)


def _strong_wolfe(
    evaluate: Callable[[Any], tuple[float, Tensor]],
    t: Any,
    d: Tensor,
    f: float,
    g: Tensor,
    gtd: Tensor,
    tolerance_change: float,
    max_ls: int,
    c1: float = 1e-4,
    c2: float = 0.9,
) -> tuple[float, Tensor, Any, int]:
    """(loss, flat grad, step, evaluations) at a step meeting the strong Wolfe conditions."""
    d_norm = d.abs().max()
    g = g.clone()
    f_new, g_new = evaluate(t)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    it = 0
    bracket: list[Any] = []
    bf: list[Any] = []
    bg: list[Any] = []
    bgtd: list[Any] = []
    while it < max_ls:
        if f_new > (f + c1 * t * gtd) or (it > 1 and f_new >= f_prev):
            bracket, bf, bg, bgtd = (
                [t_prev, t],
                [f_prev, f_new],
                [g_prev, g_new.clone()],
                [
                    gtd_prev,
                    gtd_new,
                ],
            )
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bf, bg = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bf, bg, bgtd = (
                [t_prev, t],
                [f_prev, f_new],
                [g_prev, g_new.clone()],
                [
                    gtd_prev,
                    gtd_new,
                ],
            )
            break
        previous = t
        t = _cubic_min(
            t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(t + 0.01 * (t - t_prev), t * 10)
        )
        t_prev, f_prev, g_prev, gtd_prev = previous, f_new, g_new.clone(), gtd_new
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = g_new.dot(d)
        it += 1
    if it == max_ls:
        bracket, bf, bg = [0, t], [f, f_new], [g, g_new]
    # zoom: shrink the bracket until a point satisfies the conditions
    insufficient = False
    low, high = (0, 1) if bf[0] <= bf[-1] else (1, 0)
    while not done and it < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_min(bracket[0], bf[0], bgtd[0], bracket[1], bf[1], bgtd[1])
        top, bottom = max(bracket), min(bracket)
        eps = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < eps:
            if insufficient or t >= top or t <= bottom:
                t = top - eps if abs(t - top) < abs(t - bottom) else bottom + eps
                insufficient = False
            else:
                insufficient = True
        else:
            insufficient = False
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = g_new.dot(d)
        it += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bf[low]:
            bracket[high], bf[high], bg[high], bgtd[high] = t, f_new, g_new.clone(), gtd_new
            low, high = (0, 1) if bf[0] <= bf[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], bf[high] = bracket[low], bf[low]
                bg[high], bgtd[high] = bg[low], bgtd[low]
            bracket[low], bf[low], bg[low], bgtd[low] = t, f_new, g_new.clone(), gtd_new
    return bf[low], bg[low], bracket[low], evals


class LBFGS(Optimizer):
    def __init__(
        self,
        params: Any,
        lr: float = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        if isinstance(lr, T.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        check_range("learning rate", lr, 0.0 <= lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {
            "lr": lr,
            "max_iter": max_iter,
            "max_eval": max_eval,
            "tolerance_grad": tolerance_grad,
            "tolerance_change": tolerance_change,
            "history_size": history_size,
            "line_search_fn": line_search_fn,
        }
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self) -> Tensor:
        views = [
            T.zeros(p.numel(), dtype=p.dtype) if p.grad is None else p.grad.view(-1)
            for p in self._params
        ]
        return T.cat(views, 0)

    def _add_grad(self, step_size: Any, update: Tensor) -> None:
        offset = 0
        for p in self._params:
            n = p.numel()
            K.add_(p, update[offset : offset + n].view_as(p), alpha=step_size)
            offset += n

    def _evaluate_at(
        self, closure: Callable[[], Any], x: list[Tensor], d: Tensor
    ) -> Callable[[Any], tuple[float, Tensor]]:
        def evaluate(t: Any) -> tuple[float, Tensor]:
            self._add_grad(t, d)
            with T.enable_grad():
                loss = float(closure())
            flat = self._flat_grad()
            for p, saved in zip(self._params, x):
                p.copy_(saved)
            return loss, flat

        return evaluate

    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        self._opt_called = True
        with T.no_grad():
            return self._lbfgs(closure)

    def _lbfgs(self, closure: Callable[[], Any]) -> Any:
        group = self.param_groups[0]
        lr = group["lr"].item() if isinstance(group["lr"], T.Tensor) else group["lr"]
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with T.enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:
            return orig_loss
        d: Any = state.get("d")
        t: Any = state.get("t")
        old_dirs: Any = state.get("old_dirs")
        old_stps: Any = state.get("old_stps")
        ro: Any = state.get("ro")
        h_diag: Any = state.get("H_diag")
        prev_flat_grad: Any = state.get("prev_flat_grad")
        prev_loss: Any = state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro = [], [], []
                h_diag = 1
            else:
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                # two-loop recursion: d = -H g
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                q = flat_grad.neg()
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    K.add_(q, old_dirs[i], alpha=-al[i])
                d = r = T.mul(q, h_diag)
                for i in range(len(old_dirs)):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    K.add_(r, old_stps[i], alpha=al[i] - be_i)
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break
            evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [p.clone() for p in self._params]
                loss, flat_grad, t, evals = _strong_wolfe(
                    self._evaluate_at(closure, x_init, d),
                    t,
                    d,
                    loss,
                    flat_grad,
                    gtd,
                    tolerance_change,
                    max_ls=max_eval - current_evals,
                )
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    with T.enable_grad():
                        loss = float(closure())
                    flat_grad = self._flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    evals = 1
            current_evals += evals
            state["func_evals"] += evals
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break
        state["d"], state["t"] = d, t
        state["old_dirs"], state["old_stps"], state["ro"] = old_dirs, old_stps, ro
        state["H_diag"] = h_diag
        state["prev_flat_grad"], state["prev_loss"] = prev_flat_grad, prev_loss
        return orig_loss
