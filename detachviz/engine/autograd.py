"""The backward engine: an iterative, dependency-counted walk of grad_fn nodes.

Two modes, one set of rules: without `create_graph` gradients are plain numpy arrays and the
rules run on them (`rules.NP`); with it they are Tensors and the rules build a graph (`rules.TT`).
Unbroadcasting (sum to the input's shape) and casting to the input's dtype happen here, once,
for every edge. Saved tensors are freed after a node runs unless `retain_graph`.
"""

from __future__ import annotations

import heapq
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from detachviz.engine import errors, grad_mode, state, trace
from detachviz.engine.node import (
    MULTI,
    AccumulateGrad,
    Node,
    NodePreHook,
    RetainGradHook,
    SavedOutput,
    TensorHook,
    named_attrs,
    next_seq,
)
from detachviz.engine.rules import NP, TT
from detachviz.engine.tensor import BY_NP, Tensor, edge, wrap
from detachviz.graph import vocab

_heappush = heapq.heappush
_heappop = heapq.heappop
_STALE = object()  # _loop_np: a saved value its inlined unpack leaves to node._unpack


class _Multi:
    """The gradient buffer of a multi-output node: one slot per output_nr."""

    __slots__ = ("grads",)

    def __init__(self, grads: list[Any]) -> None:
        self.grads = grads

    def __add__(self, other: _Multi) -> _Multi:
        out = list(self.grads)
        for k, g in enumerate(other.grads):
            if g is not None:
                out[k] = g if out[k] is None else out[k] + g
        return _Multi(out)


def _fit(g: Any, nxt: Node, nr: int, tensor_mode: bool) -> Any:
    """Sum a gradient down to its input's shape (undo broadcasting) and cast to its dtype;
    for a multi-output node, place it in its output's slot."""
    shape, npd = nxt._shape, nxt._npd
    multi = shape is MULTI
    if multi:
        shape, npd = npd[nr]
    if tensor_mode:
        if g._data.shape != shape:
            g = TT.sum_to(g, shape)
        if g._data.dtype != npd:
            g = g.to(BY_NP[npd])
    else:
        if g.shape != shape:
            g = NP.sum_to(g, shape)
        if g.dtype != npd:
            g = np.asarray(g).astype(npd)
    if multi:
        slots: list[Any] = [None] * len(nxt._npd)
        slots[nr] = g
        return _Multi(slots)
    return g


def _to_tensor(g: Any, tensor_mode: bool) -> Tensor:
    return g if tensor_mode else wrap(np.asarray(g))


def _run_pre_hooks(node: Node, g: Any, tensor_mode: bool) -> Any:
    if type(g) is _Multi:
        # hooks of a multi-output node's outputs see their own slot only
        slots = list(g.grads)
        for nr in range(len(slots)):
            if slots[nr] is not None:
                hooks = [h for h in node._pre_hooks or () if getattr(h, "output_nr", None) == nr]
                if hooks:
                    slots[nr] = _run_hook_list(hooks, slots[nr], tensor_mode)
        return _Multi(slots)
    return _run_hook_list(node._pre_hooks or [], g, tensor_mode)


def _run_hook_list(hooks: list[Any], g: Any, tensor_mode: bool) -> Any:
    retain = []
    for h in list(hooks):
        kind = type(h)
        if kind is TensorHook:
            r = h.fn(_to_tensor(g, tensor_mode))
            if r is not None:
                g = r if tensor_mode else r._data
        elif kind is NodePreHook:
            r = h.fn((_to_tensor(g, tensor_mode),))
            if r is not None:
                g = r[0] if tensor_mode else r[0]._data
        elif kind is RetainGradHook:
            retain.append(h)
    for h in retain:  # NOTE: retain_grad sees the gradient after every other tensor hook
        t = h.ref()
        if t is None:
            continue
        if t._grad is None:
            t._grad = g.clone() if tensor_mode else wrap(np.array(g, copy=True), t._dtype)
        else:
            t._grad = t._grad + (g if tensor_mode else wrap(np.asarray(g), t._dtype))
    return g


def _accumulate(node: AccumulateGrad, g: Any, tensor_mode: bool) -> None:
    var = node.variable
    if var._grad_fn is not None:
        # NOTE: the leaf got a history after this graph was built (detach_() then an in-place
        # op with an operand requiring grad)
        raise RuntimeError("leaf variable has been moved into the graph interior")
    _write_grad(node, g, tensor_mode)  # (skips a leaf no longer requiring grad; hooks still run)
    if node._post_acc:
        _run_post_accumulate(node)


def _run_post_accumulate(node: AccumulateGrad) -> None:
    """The leaf's post-accumulate-grad hooks, after .grad is written (backward only)."""
    var = node.variable
    for hook in tuple(node._post_acc or ()):
        r = hook(var)
        if r is var:
            continue  # NOTE: torch accepts a hook that returns the tensor itself
        if isinstance(r, Tensor):
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")
        if r is not None:
            raise TypeError(f"expected Variable, but hook returned '{type(r).__name__}'")


def _write_grad(node: AccumulateGrad, g: Any, tensor_mode: bool) -> None:
    var = node.variable
    if not var._requires_grad:
        # NOTE: torch's AccumulateGrad skips a leaf that stopped requiring grad after the
        # graph was built (detach_(), requires_grad_(False)): its .grad stays as it was
        return
    old = var._grad
    if tensor_mode:
        if old is None:
            # NOTE: torch stores a copy made by copy_ (x.grad shows grad_fn=<CopyBackwards>)
            new = wrap(np.zeros_like(var._data), var._dtype)
            var._grad = new.copy_(g) if g._requires_grad else g.detach().clone()
        else:
            var._grad = old + g
        return
    if old is None:
        var._grad = wrap(np.array(g, dtype=var._data.dtype, copy=True), var._dtype)
    else:
        # NOTE: torch accumulates in place when not building a graph (.grad keeps its id)
        od = old._data
        if od.flags.writeable and od.shape == np.shape(g):
            np.add(od, g, out=od)
        else:
            var._grad = wrap(od + g, old._dtype)


def _needed(roots: list[Node], targets: set[Node]) -> set[Node]:
    """Nodes from which some target is reachable (what autograd.grad must execute)."""
    needed: set[Node] = set()
    state: dict[Node, int] = {}
    for r in roots:
        if r in state:
            continue
        stack: list[tuple[Node, int]] = [(r, 0)]
        state[r] = 1
        while stack:
            n, i = stack[-1]
            nf = n.next_functions
            if i < len(nf):
                stack[-1] = (n, i + 1)
                c = nf[i][0]
                if c is not None and c not in state:
                    state[c] = 1
                    stack.append((c, 0))
                continue
            stack.pop()
            if n in targets or any(e[0] in needed for e in nf if e[0] is not None):
                needed.add(n)
    return needed


FORWARD_OVER_REVERSE = (
    "forward AD: a create_graph backward inside a dual level whose tensors have tangents "
    "(forward-over-reverse) is not supported by detachviz: the derivative formulas do not carry "
    "the tangents of the tensors they saved; use torch.func.hessian, torch.func.jacrev or "
    "torch.autograd.functional.hvp instead"
)


def _refuse_forward_over_reverse() -> None:
    """A create_graph backward while dual tensors are alive would give tangents that miss the
    saved tensors' part (None for tanh's): refused instead of silently partial."""
    if any(getattr(t, "_fw_tangent", None) is not None for t in list(state.fw_live)):
        raise NotImplementedError(FORWARD_OVER_REVERSE)


def run_backward(
    roots: list[tuple[Any, Any]],
    retain_graph: bool,
    create_graph: bool,
    capture: dict[Any, Any] | None = None,
    fast: bool = True,
    accumulate: bool = True,
) -> None:
    """Propagate gradients from `roots` ((node, grad) pairs) through the graph.

    With `capture` (autograd.grad), gradients reaching the captured nodes are stored there,
    leaves' `.grad` are left alone, and only nodes leading to a captured one run. A plain
    backward takes the unrolled `_loop_np`; `fast=False` runs the general loop instead (the
    tests pin the two against each other)."""
    if create_graph and state.fw_level >= 0:
        _refuse_forward_over_reverse()
    state.backward_pass += 1
    tensor_mode = create_graph
    deps: dict[Node, int] = {}
    buffers: dict[Node, Any] = {}
    for node, g in roots:
        deps.setdefault(node, 0)
        prev = buffers.get(node)
        buffers[node] = g if prev is None else prev + g
    stack = list(deps)
    while stack:
        n = stack.pop()
        for e in n.next_functions:
            c = e[0]
            if c is None:
                continue
            k = deps.get(c)
            if k is None:
                deps[c] = 1
                stack.append(c)
            else:
                deps[c] = k + 1
    needed = None
    if capture is not None:
        needed = _needed([n for n, _ in roots], set(capture))
    heap = [(-n._seq, n) for n in buffers if deps[n] == 0]
    heapq.heapify(heap)
    prev_reach = state.backward_reach
    state.backward_reach = (deps, needed, accumulate)
    prev_mode = state.grad_enabled
    grad_mode.set_mode(create_graph)
    kern = TT if tensor_mode else NP
    # ops the rules run (create_graph) are backward work, not script ops: keep them out of
    # the trace
    recorder = trace.RECORDER
    trace.RECORDER = None
    try:
        if fast and capture is None and not tensor_mode:
            _loop_np(heap, buffers, deps, retain_graph)
            return
        while heap:
            node = _heappop(heap)[1]
            g = buffers.pop(node, None)
            if g is not None and (needed is not None and node not in needed):
                g = None  # a node this pass does not run (torch runs neither it nor its hooks)
            if g is not None and node._pre_hooks:
                g = _run_pre_hooks(node, g, tensor_mode)
            if capture is not None and node in capture:
                capture[node] = g
            nf = node.next_functions
            if type(node) is AccumulateGrad:
                if g is not None and capture is None:
                    _accumulate(node, g, tensor_mode)
                if node._hooks:
                    for h in node._hooks:
                        h((), (_to_tensor(g, tensor_mode),) if g is not None else (None,))
                continue
            if g is None or (needed is not None and node not in needed):
                grads = None
            elif node._custom is not None:
                grads = node._custom(node, g, tensor_mode)
            else:
                sv = node._saved
                s = node._unpack(tensor_mode) if sv is None or sv else sv
                a = named_attrs(node)
                vjps = node._vjps
                grads = [None if e[0] is None else vjps[i](kern, g, s, a) for i, e in enumerate(nf)]
            if grads is not None:
                if node._hooks:
                    grads = _run_post_hooks(node, grads, g, tensor_mode)
                if not retain_graph and node._saved:
                    node._saved = None
            i = -1
            for e in nf:
                i += 1
                nxt = e[0]
                if nxt is None:
                    continue
                if grads is not None:
                    gi = grads[i]
                    if gi is not None:
                        if tensor_mode:
                            if gi._data.shape != nxt._shape or gi._data.dtype != nxt._npd:
                                gi = _fit(gi, nxt, e[1], True)
                        elif gi.shape != nxt._shape or gi.dtype != nxt._npd:
                            gi = _fit(gi, nxt, e[1], False)
                        prev = buffers.get(nxt)
                        buffers[nxt] = gi if prev is None else prev + gi
                k = deps[nxt] - 1
                deps[nxt] = k
                if k == 0:
                    _heappush(heap, (-nxt._seq, nxt))
    finally:
        grad_mode.set_mode(prev_mode)
        trace.RECORDER = recorder
        state.backward_reach = prev_reach


def _loop_np(
    heap: list[Any], buffers: dict[Node, Any], deps: dict[Node, int], retain_graph: bool
) -> None:
    """The common case of `run_backward` (plain backward, no graph building), specialised:
    same steps, fewer checks per node. Keep the two loops in step."""
    kern = NP
    pop = buffers.pop
    get = buffers.get
    st = state
    tnew = tuple.__new__
    T_ = Tensor
    scalars = (float, int, bool)
    # NOTE: a chain has one ready node at a time; it skips the heap (same order: the heap is
    # only bypassed while it is empty) and, when it has a single producer of gradient, the
    # buffer dict too (`ready_g` carries the gradient; `carried` says it is there)
    ready = None
    ready_g = None
    carried = False
    while True:
        if ready is not None:
            node = ready
            ready = None
            if carried:
                g = ready_g
                ready_g = None
                carried = False
            else:
                g = pop(node, None)
        elif heap:
            node = _heappop(heap)[1]
            g = pop(node, None)
        else:
            break
        if g is not None and node._pre_hooks:
            g = _run_pre_hooks(node, g, False)
        nf = node.next_functions
        if node.__class__ is AccumulateGrad:
            if g is not None:
                _accumulate(node, g, False)
            if node._hooks:
                for h in node._hooks:
                    h((), (_to_tensor(g, False),) if g is not None else (None,))
            continue
        if g is None:
            grads = None
        elif node._custom is not None:
            grads = node._custom(node, g, False)
            if node._hooks:
                grads = _run_post_hooks(node, grads, g, False)
            if node._saved and not retain_graph:
                node._saved = None  # as the general loop does (custom Functions save here)
        else:
            sv = node._saved
            if not sv:
                s = node._unpack(False) if sv is None else sv
            elif st.detached_inplace or st.packed:
                s = node._unpack(False)
            else:
                # node._unpack inlined for the common case; any doubt goes to _unpack, which
                # raises torch's errors
                vers = node._versions
                ns = len(sv)
                if ns <= 2:
                    # one or two saved values (relu, exp, mul, div, mv, ...) without the loop
                    t = sv[0]
                    c = t.__class__
                    if c is T_ or c is SavedOutput:
                        s0 = t._data if (0 if t._vc is None else t._vc.v) == vers[0] else _STALE
                    elif t is None or c in scalars:
                        s0 = t
                    else:
                        s0 = _STALE
                    if ns == 1:
                        s = (s0,) if s0 is not _STALE else node._unpack(False)
                    else:
                        t = sv[1]
                        c = t.__class__
                        if c is T_ or c is SavedOutput:
                            vc = t._vc
                            s1 = t._data if (0 if vc is None else vc.v) == vers[1] else _STALE
                        elif t is None or c in scalars:
                            s1 = t
                        else:
                            s1 = _STALE
                        if s0 is _STALE or s1 is _STALE:
                            s = node._unpack(False)
                        else:
                            s = (s0, s1)
                else:
                    s = []
                    for k in range(ns):
                        t = sv[k]
                        c = t.__class__
                        if c is T_ or c is SavedOutput:
                            vc = t._vc
                            if (0 if vc is None else vc.v) != vers[k]:
                                s = node._unpack(False)
                                break
                            s.append(t._data)
                        elif t is None or c in scalars:
                            s.append(t)
                        else:
                            s = node._unpack(False)
                            break
            vjps = node._vjps
            a = node._attrs
            if a and a.__class__ is tuple:
                named = node._Attrs
                if named is not None:
                    a = tnew(named, a)  # the rules read attributes by name (`a.dim`)
            n = len(nf)
            if n == 1:
                grads = (vjps[0](kern, g, s, a),)
            elif n == 2:
                grads = (
                    None if nf[0][0] is None else vjps[0](kern, g, s, a),
                    None if nf[1][0] is None else vjps[1](kern, g, s, a),
                )
            else:
                grads = [None if e[0] is None else vjps[i](kern, g, s, a) for i, e in enumerate(nf)]
            if node._hooks:
                grads = _run_post_hooks(node, grads, g, False)
            if sv and not retain_graph:
                node._saved = None
        i = -1
        for e in nf:
            i += 1
            nxt = e[0]
            if nxt is None:
                continue
            k = deps[nxt] - 1
            deps[nxt] = k
            if grads is not None:
                gi = grads[i]
                if gi is not None:
                    if gi.shape != nxt._shape or (
                        gi.dtype is not nxt._npd and gi.dtype != nxt._npd
                    ):
                        gi = _fit(gi, nxt, e[1], False)
                    if k == 0 and ready is None and not heap and nxt not in buffers:
                        # the chain step: the next node's only gradient, carried to it
                        ready = nxt
                        ready_g = gi
                        carried = True
                        continue
                    prev = get(nxt)
                    buffers[nxt] = gi if prev is None else prev + gi
            if k == 0:
                if ready is None and not heap:
                    ready = nxt
                else:
                    if ready is not None:
                        _heappush(heap, (-ready._seq, ready))
                        if carried:
                            buffers[ready] = ready_g
                            ready_g = None
                            carried = False
                        ready = None
                    _heappush(heap, (-nxt._seq, nxt))


def apply_node(node: Node, grads: tuple[Any, ...]) -> Any:
    """`grad_fn(*grads)`: run one node's rule on tensors, without touching the graph."""
    g: Any = grads[0] if len(grads) == 1 else _Multi(list(grads))
    prev = state.grad_enabled
    grad_mode.set_mode(False)
    try:
        if node._custom is not None:
            out = node._custom(node, g._data if len(grads) == 1 else g, False)
        else:
            s = node._unpack(False)
            out = [
                None if e[0] is None else node._vjps[i](NP, g._data, s, named_attrs(node))
                for i, e in enumerate(node.next_functions)
            ]
    finally:
        grad_mode.set_mode(prev)
    res = tuple(None if o is None else wrap(np.array(o)) for o in out)
    return res[0] if len(res) == 1 else res


def _run_post_hooks(node: Node, grads: Sequence[Any], g: Any, tensor_mode: bool) -> Sequence[Any]:
    # NOTE: torch validates a node's outputs (sums broadcast gradients down to each input's
    # shape, casts to its dtype) before its post hooks see them
    fitted = []
    for x, e in zip(grads, node.next_functions, strict=False):
        if x is None or e[0] is None:
            fitted.append(x)
            continue
        f = _fit(x, e[0], e[1], tensor_mode)
        fitted.append(f.grads[e[1]] if isinstance(f, _Multi) else f)
    grads = fitted
    for h in node._hooks or ():
        gin = tuple(None if x is None else _to_tensor(x, tensor_mode) for x in grads)
        outs = g.grads if isinstance(g, _Multi) else (g,)
        r = h(gin, tuple(None if x is None else _to_tensor(x, tensor_mode) for x in outs))
        if r is not None:
            grads = [None if x is None else (x if tensor_mode else x._data) for x in r]
    return grads


def _as_tuple(x: Any) -> tuple[Any, ...]:
    if x is None:
        return ()
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _root_grads(
    outputs: tuple[Tensor, ...], grad_outputs: tuple[Any, ...], create_graph: bool
) -> list[tuple[Any, Any]]:
    if len(grad_outputs) not in (0, len(outputs)):
        raise RuntimeError(
            f"grad requires one gradient per output: got {len(grad_outputs)} gradients and "
            f"{len(outputs)} outputs"
        )
    roots = []
    for i, t in enumerate(outputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"backward(): outputs must be Tensors, not {type(t).__name__}")
        if not t._requires_grad:
            raise RuntimeError(errors.NO_GRAD_FN.format(i))
        g = grad_outputs[i] if grad_outputs else None
        if g is None:
            if t._data.size != 1:
                raise RuntimeError(errors.IMPLICIT_SCALAR)
            ga = np.ones_like(t._data)
            gv: Any = wrap(ga, t._dtype) if create_graph else ga
        else:
            if not isinstance(g, Tensor):
                g = wrap(np.asarray(g, dtype=t._data.dtype), t._dtype)
            if g._data.shape != t._data.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                    f"output[{i}] has a shape of {t.shape}."
                )
            if create_graph:
                gv = g
            else:
                gv = g._data if g._data.dtype == t._data.dtype else g._data.astype(t._data.dtype)
        node, nr = edge(t)
        if (
            node is not None and node._shape is MULTI
        ):  # a later output of a multi-output node: its own slot
            slots: list[Any] = [None] * len(node._npd)
            slots[nr] = gv
            gv = _Multi(slots)
        roots.append((node, gv))
    return roots


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Any = None,
) -> None:
    """torch.autograd.backward."""
    outputs = _as_tuple(tensors)
    diff = None
    if trace.RECORDER is not None:  # graph capture takes its roots from here
        diff = trace.RECORDER.record(
            vocab.BACKWARD, tuple(t for t in outputs if isinstance(t, Tensor)), ()
        )
    grads = _as_tuple(grad_tensors if grad_tensors is not None else grad_variables)
    if retain_graph is None:
        retain_graph = create_graph
    roots = _root_grads(outputs, grads, create_graph)
    if inputs is not None:
        ins = _as_tuple(inputs)
        if not ins:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        capture = {edge(t)[0]: None for t in ins}
        run_backward(roots, retain_graph, create_graph, capture)
        for t in ins:
            g = capture[edge(t)[0]]
            if g is not None and t._grad_fn is None:
                _accumulate(t._accumulator(), g, create_graph)
            elif g is not None:
                t._grad = _to_tensor(g, create_graph) if t._grad is None else t._grad + g
        return
    first_new = next_seq()  # the nodes this backward makes get higher numbers
    run_backward(roots, retain_graph, create_graph)
    if create_graph and diff is not None and trace.RECORDER is not None:
        # the derivative graph (behind the leaves' .grad) has no record: keep its saves
        made = lambda fn: getattr(fn, "_seq", 0) > first_new  # noqa: E731
        leaf_grads = trace.leaf_grads([t for t in outputs if isinstance(t, Tensor)])
        trace.RECORDER.keep_derived(leaf_grads, made, diff)


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...]:
    """torch.autograd.grad: gradients of outputs w.r.t. inputs, without touching `.grad`."""
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False."
        )
    if not only_inputs:
        warnings.warn(
            "only_inputs argument is deprecated and is ignored now (defaults to True). To "
            "accumulate gradient for other parts of the graph, please use "
            "torch.autograd.backward.",
            FutureWarning,
            stacklevel=2,
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    if is_grads_batched:
        return _batched_grad(
            outputs,
            inputs,
            grad_outputs,
            retain_graph,
            create_graph,
            allow_unused,
            materialize_grads,
        )
    outs = _as_tuple(outputs)
    ins = _as_tuple(inputs)
    diff = None
    if trace.RECORDER is not None:
        diff = trace.RECORDER.record(
            vocab.AUTOGRAD_GRAD, tuple(t for t in outs if isinstance(t, Tensor)), ()
        )
    if retain_graph is None:
        retain_graph = create_graph
    for t in ins:
        if not t._requires_grad:
            raise RuntimeError(errors.INPUT_NO_RG)
    roots = _root_grads(outs, _as_tuple(grad_outputs), create_graph)
    edges = [edge(t) for t in ins]
    capture: dict[Any, Any] = {e[0]: None for e in edges}
    first_new = next_seq()  # the nodes this backward makes get higher numbers
    run_backward(roots, retain_graph, create_graph, capture, accumulate=False)
    result: list[Tensor | None] = []
    for i, (t, e) in enumerate(zip(ins, edges)):
        g = capture[e[0]]
        if g is None:
            if not allow_unused:
                raise RuntimeError(errors.UNUSED_INPUT.format(i))
            result.append(wrap(np.zeros_like(t._data), t._dtype) if materialize_grads else None)
            continue
        if create_graph:
            result.append(g)
        else:
            result.append(wrap(np.array(g, copy=True), t._dtype))
    if create_graph and diff is not None and trace.RECORDER is not None:
        # the derivative graph's nodes have no record: keep what they saved for the picture
        made = lambda fn: getattr(fn, "_seq", 0) > first_new  # noqa: E731
        trace.RECORDER.keep_derived(result, made, diff)
    return tuple(result)


def _batched_grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any,
    retain_graph: bool | None,
    create_graph: bool,
    allow_unused: bool,
    materialize_grads: bool,
) -> tuple[Tensor | None, ...]:
    """grad(is_grads_batched=True): each grad_output's first dim is a batch of vectors; one
    vector-Jacobian product per entry, stacked (torch vmaps the same computation)."""
    if create_graph:
        raise NotImplementedError(
            "torch.autograd.grad(is_grads_batched=True, create_graph=True) is not supported by "
            "detachviz"
        )
    gos = _as_tuple(grad_outputs)
    if not gos or any(not isinstance(g, Tensor) or g._data.ndim == 0 for g in gos):
        raise RuntimeError(
            "detachviz: grad(is_grads_batched=True) needs a Tensor grad_output with a batch dim "
            "per output"
        )
    n = gos[0]._data.shape[0]
    rows = []
    for i in range(n):
        keep = True if i < n - 1 else bool(retain_graph)
        rows.append(
            grad(
                outputs,
                inputs,
                tuple(wrap(g._data[i], g._dtype) for g in gos),
                retain_graph=keep,
                allow_unused=allow_unused,
                materialize_grads=materialize_grads,
            )
        )
    out: list[Tensor | None] = []
    for j in range(len(rows[0]) if rows else 0):
        col = [r[j] for r in rows]
        if all(c is None for c in col):
            out.append(None)
            continue
        ref = next(c for c in col if c is not None)
        arrs = [np.zeros_like(ref._data) if c is None else c._data for c in col]
        out.append(wrap(np.stack(arrs), ref._dtype))
    return tuple(out)


__all__: Sequence[str] = ("backward", "grad", "run_backward")
