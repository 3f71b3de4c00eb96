"""What the engine reports to the op recorder: op names, cuts, in-place snapshots."""

from __future__ import annotations

import gc
import warnings
import weakref

import detachviz.torch as torch
from detachviz.engine import trace


def _ops(rec):
    return [(r.op, r.cut, r.inplace) for r in rec.records]


def test_nothing_recorded_without_recorder():
    assert trace.RECORDER is None
    x = torch.ones(2, requires_grad=True)
    (x * 2).detach()
    assert trace.RECORDER is None


def test_ops_and_detach_cut():
    x = torch.ones(3, requires_grad=True)
    with trace.recording() as rec:
        y = x**2
        z = y.detach()
        w = (z * 3).sum()
    assert _ops(rec) == [
        ("pow", None, False),
        ("detach", "detach", False),
        ("mul", None, False),
        ("sum", None, False),
    ]
    det = rec.records[1]
    assert det.inputs[0].tensor is y and det.outputs[0].tensor is z
    assert det.inputs[0].grad_fn is y.grad_fn and det.inputs[0].requires_grad
    assert rec.records[3].outputs[0].tensor is w
    assert rec.records[2].inputs[0].producer is det


def test_detach_inplace_snapshots_before_clearing():
    x = torch.ones(3, requires_grad=True)
    with trace.recording() as rec:
        y = x * 2
        y.detach_()
    r = rec.records[-1]
    assert (r.op, r.cut, r.inplace) == ("detach_", "detach_", True)
    assert r.inputs[0].tensor is y and r.inputs[0].grad_fn.name() == "MulBackward0"
    assert r.outputs[0].tensor is y and r.outputs[0].grad_fn is None
    assert r.inputs[0].producer is rec.records[0]


def test_data_and_copy_cuts():
    x = torch.ones(3, requires_grad=True)
    with trace.recording() as rec, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # kept alive: the trace forgets a cut whose result died unused (nothing can draw it)
        kept = [x.data, torch.tensor(x), x.new_tensor(x)]
        torch.tensor([1.0, 2.0])  # a pure factory: not recorded
        torch.ones(2)
    assert _ops(rec) == [
        ("data", "data", False),
        ("tensor", "copy", False),
        ("new_tensor", "copy", False),
    ]
    assert len(kept) == 3


def test_no_grad_is_detected_by_recorder():
    x = torch.ones(3, requires_grad=True)
    with trace.recording() as rec:
        with torch.no_grad():
            y = x * 2
        z = torch.ones(2) * 2
    # (records live as long as their values: a dropped result's record is freed with it)
    assert [r.cut for r in rec.records] == ["no_grad", None]
    assert y.requires_grad is z.requires_grad is False


def test_inplace_records_snapshot_and_version():
    x = torch.ones(3, requires_grad=True)
    with trace.recording() as rec:
        y = x * 1
        y.add_(1)
        y[0] = 5.0
        y.zero_()
    ops = _ops(rec)
    assert ops == [
        ("mul", None, False),
        ("add_", None, True),
        ("setitem", None, True),
        ("zero_", None, True),
    ]
    add = rec.records[1]
    assert add.inputs[0].tensor is y and add.outputs[0].tensor is y
    assert add.inputs[0].grad_fn.name() == "MulBackward0"
    assert add.outputs[0].grad_fn.name() == "AddBackward0"
    setitem = rec.records[2]
    assert setitem.outputs[0].grad_fn.name() == "torch::autograd::CopySlices"


def test_views_are_recorded():
    x = torch.ones(2, 3, requires_grad=True)
    with trace.recording() as rec:
        views = [x.view(6), x.t(), x[0], x[:, 1:]]
    assert [r.op for r in rec.records] == ["view", "t", "select", "slice"]
    assert [r.outputs[0].tensor for r in rec.records] == views


def test_records_of_dropped_values_are_freed():
    # a training loop: only what the live values need stays recorded (the last step)
    w = torch.ones(3, requires_grad=True)
    with trace.recording() as rec:
        for step in range(50):
            loss = (w * (step + 1.0)).tanh().sum()
            loss.backward()
            with torch.no_grad():
                w -= 0.01 * w.grad
            w.grad = None
    gc.collect()
    forward = [r.op for r in rec.records if not r.inplace and r.grad_enabled]
    assert forward == ["mul", "tanh", "sum", "backward"]  # the last step's
    assert rec.producer_of(loss).op == "sum"


def test_backward_and_grad_are_recorded_with_their_roots():
    x = torch.ones(2, requires_grad=True)
    with trace.recording() as rec:
        y = (x * 2).sum()
        y.backward(retain_graph=True)
        torch.autograd.grad(y, x)
    assert [r.op for r in rec.records[-2:]] == ["backward", "autograd.grad"]
    assert rec.records[-2].inputs[0].tensor is y and rec.records[-2].outputs == ()
    assert rec.records[-1].inputs[0].tensor is y


def test_records_keep_shape_and_saved_tensors_after_the_script_dropped_them(rt):
    # the record reads its shape from the op's node and keeps what the node saved, which
    # the node itself frees at backward
    real = rt  # PyTorch, for the names and values its node saves (skips without it)

    x = torch.ones(2, 3, requires_grad=True)
    w = torch.full((3,), 2.0)
    with trace.recording() as rec:
        loss = (x * w).sum(0).sum()
        loss.backward()
    mul = next(r for r in rec.records if r.op == "mul")
    assert mul.outputs[0].tensor is None  # dropped by the script
    assert mul.shape == (2, 3)
    assert next(r for r in rec.records if r.op == "sum").shape == (3,)
    rx = real.ones(2, 3, requires_grad=True)
    rw = real.full((3,), 2.0)
    fn = (rx * rw).grad_fn
    want = {n: v for n in ("self", "other") if (v := getattr(fn, "_saved_" + n)) is not None}
    got = {sv.name: sv.tensor for sv in mul.saved}
    assert got.keys() == want.keys()
    for name, value in want.items():
        assert got[name].tolist() == value.tolist()


def test_recording_leaves_older_objects_out_of_collection_until_it_ends():
    class Cycle:
        def __init__(self) -> None:
            self.me = self

    before = gc.get_freeze_count()
    with trace.recording():
        frozen = gc.get_freeze_count()
        with trace.recording():  # an inner recorder does not unfreeze early
            pass
        assert gc.get_freeze_count() == frozen > before
        made = Cycle()  # the script's own cyclic garbage is collected as usual
        alive = weakref.ref(made)
        del made
        gc.collect()
        assert alive() is None
    assert gc.get_freeze_count() == before
