"""`detachviz grad`'s report: statuses and reasons name the right mechanism and line."""

from __future__ import annotations

import pytest

from detachviz.gradreport import grad_report
from detachviz.runner import RootError


def rows(report):
    return {r.name: r for r in report.rows}


def test_seed_detached_branch_is_partly_cut_with_the_right_line(script):
    report = grad_report(
        str(
            script("""
        a = torch.ones(20, requires_grad=True) * 2
        a = a.detach().requires_grad_()
        b = a**3
        c = a.detach()**6
        i = (b + c).sum()
        i.backward()
    """)
        )
    )
    a = rows(report)["a"]
    assert report.backward_by == "script" and report.root == "i"
    assert a.status == "partly-cut" and a.line == 4
    assert "detach() at line 4" in a.reason and "c = a.detach()**6" in a.reason
    assert a.grad["mean"] == pytest.approx(12.0)  # 3a^2 at a = 2
    c = rows(report)["c"]
    assert c.status == "no-grad-required" and "detach() at line 4" in c.reason


def test_none_gradients_get_their_reason(script):
    report = grad_report(
        str(
            script("""
        w = torch.ones(3, requires_grad=True)
        u = torch.ones(3, requires_grad=True)
        v = torch.ones(3, requires_grad=True)
        q = torch.ones(3, requires_grad=True)
        unused = torch.ones(3, requires_grad=True)
        k = torch.ones(3)
        with torch.no_grad():
            s = w * 2
        d = u.data + 1
        c = torch.tensor(v) * 3
        loss = (s + d + c + q * k).sum()
    """)
        )
    )
    r = rows(report)
    assert report.backward_by == "detachviz"
    assert (r["w"].status, r["w"].line) == ("cut", 8)
    assert r["w"].reason.startswith("only used inside no_grad at line 8")
    assert r["u"].reason.startswith("only reached through .data at line 9")
    assert r["v"].reason.startswith("copied by torch.tensor(...) at line 10")
    assert (r["q"].status, r["q"].grad["values"]) == ("ok", [1.0, 1.0, 1.0])
    assert (r["unused"].status, r["unused"].reason) == ("unused", "not used by the root")
    assert r["k"].status == "no-grad-required"
    assert all(r[n].grad is None for n in ("w", "u", "v", "unused", "k"))


def test_non_leaves_are_listed_apart_unless_they_retain_grad(script):
    report = grad_report(
        str(
            script("""
        a = torch.ones(2, requires_grad=True)
        h = a * 3
        h.retain_grad()
        mid = h * 2
        out = mid.sum()
        out.backward()
    """)
        )
    )
    assert report.non_leaves == ["mid"]
    assert rows(report)["h"].grad["values"] == [2.0, 2.0]


def test_inplace_error_is_diagnosed_with_both_lines(script):
    report = grad_report(
        str(
            script("""
        m = torch.arange(5., requires_grad=True)
        n = m**2
        o = m.detach()
        o.zero_()
        n.sum().backward()
    """)
        )
    )
    assert report.exit_code == 1
    (d,) = report.diagnoses
    assert d.kind == "inplace-error" and "modified by an inplace operation" in d.message
    assert (d.variable, d.saved_by, d.saved_line) == ("m", "PowBackward0", 2)
    assert (d.modified_by, d.modified_line) == ("zero_() on o", 4)
    assert any("line 3" in f and ".clone()" in f for f in d.fixes)
    assert any("torch.zeros_like(o)" in f for f in d.fixes)
    assert rows(report)["m"].status == "not-run"


def test_silent_data_write_is_flagged(script):
    report = grad_report(
        str(
            script("""
        x = torch.ones(1, requires_grad=True)
        y = x * x
        x.data *= 100
        y.backward()
    """)
        )
    )
    (d,) = report.diagnoses
    assert (d.kind, d.saved_line, d.modified_line) == ("data-write", 2, 3)
    x = rows(report)["x"]
    assert x.status == "wrong" and x.grad["values"] == [200.0]  # torch's (wrong) answer


def test_data_write_before_use_is_fine(script):
    report = grad_report(
        str(
            script("""
        x = torch.ones(1, requires_grad=True)
        x.data *= 100
        y = x * x
        y.backward()
    """)
        )
    )
    assert report.diagnoses == []
    assert rows(report)["x"].status == "ok"


def test_several_scalar_outputs_ask_for_a_root(script):
    path = str(
        script("""
        a = torch.ones(2, requires_grad=True)
        p = (a * 2).sum()
        q = (a * 3).sum()
    """)
    )
    with pytest.raises(RootError, match="several scalar outputs \\(p, q\\)"):
        grad_report(path)
    report = grad_report(path, root="q")
    assert rows(report)["a"].grad["values"] == [3.0, 3.0]


def test_json_shape_is_stable(script):
    report = grad_report(
        str(
            script("""
        a = torch.ones(2, requires_grad=True)
        loss = (a * a.detach()).sum()
    """)
        )
    )
    data = report.to_dict()
    assert set(data) == {"version", "script", "root", "backward_called_by", "leaves",
                         "non_leaves", "notes", "diagnoses", "error"}  # fmt: skip
    (leaf,) = data["leaves"]
    assert set(leaf) == {"name", "shape", "requires_grad", "grad", "status", "reason", "line"}
    assert leaf["status"] == "partly-cut" and leaf["line"] == 2


def test_training_loop_explains_the_last_step_without_spurious_cuts(script):
    report = grad_report(
        str(
            script("""
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x, y = torch.randn(16, 4), torch.randn(16, 1)
        for step in range(3):
            opt.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            opt.step()
    """)
        )
    )
    assert report.root == "loss" and report.backward_by == "script"
    params = [r for r in report.rows if r.name.startswith("model.")]
    assert [r.name for r in params] == ["model.0.weight", "model.0.bias",
                                        "model.2.weight", "model.2.bias"]  # fmt: skip
    assert {r.status for r in params} == {"ok"}


def test_root_other_than_the_differentiated_one_says_so(script):
    report = grad_report(str(script("""
        a = torch.ones(2, requires_grad=True)
        b = (a * 2).sum()
        i = (a * 3).sum()
        i.backward()
    """)), root="b")  # fmt: skip
    assert report.root == "b"
    assert report.notes == [
        "the script called backward() on i, so .grad holds that gradient; "
        "statuses say what reaches b"
    ]


def test_unnamed_root_is_described_by_its_line(script):
    report = grad_report(
        str(
            script("""
        a = torch.ones(2, requires_grad=True)
        (a * 2).sum().backward()
    """)
        )
    )
    assert report.root == "the tensor differentiated at line 2"


def test_backward_error_caught_by_the_script(script):
    report = grad_report(
        str(
            script("""
        m = torch.arange(3., requires_grad=True)
        n = m**2
        m.detach().zero_()
        try:
            n.sum().backward()
        except RuntimeError:
            pass
    """)
        )
    )
    m = rows(report)["m"]
    assert m.status == "not-run" and "did not finish" in m.reason


def test_data_write_through_a_slice_is_flagged(script):
    report = grad_report(
        str(
            script("""
        x = torch.ones(4, requires_grad=True)
        y = (x * x).sum()
        x.data[1:3].mul_(10)
        y.backward()
    """)
        )
    )
    (d,) = report.diagnoses
    assert (d.kind, d.variable, d.modified_line) == ("data-write", "x", 3)


def test_gan_step_says_which_root_each_generator_gradient_comes_from(script):
    report = grad_report(
        str(
            script("""
        torch.manual_seed(0)
        G, D = nn.Linear(2, 3), nn.Linear(3, 1)
        fake = G(torch.randn(4, 2))
        d_loss = D(torch.randn(4, 3)).mean() - D(fake.detach()).mean()
        d_loss.backward()
        g_loss = -D(fake).mean()
        g_loss.backward()
    """)
        )
    )
    assert report.root == "d_loss, g_loss"
    g = rows(report)["G.weight"]
    assert g.status == "partly-cut" and g.line == 4
    assert g.reason.startswith("gradient from g_loss; cut from d_loss by detach() at line 4")
    assert rows(report)["D.bias"].reason == "gradient flows from d_loss, g_loss"


def test_parameter_made_a_non_leaf_by_scaling_gets_the_real_fix(script):
    report = grad_report(
        str(
            script("""
        x = torch.ones(4, 3)
        w = torch.randn(3, 2, requires_grad=True) * 0.01
        v = torch.ones(3, 2, requires_grad=True).t() - 0.5
        h = x @ w
        loss = h.sum() + v.sum()
        loss.backward()
    """)
        )
    )
    w = rows(report)["w"]
    assert (w.status, w.line, w.grad) == ("non-leaf", 2, None)
    assert "from an unnamed leaf, which receives the gradient" in w.reason
    assert w.reason.endswith("Make w the leaf: `w = (torch.randn(3, 2) * 0.01).requires_grad_()`")
    v = rows(report)["v"]  # two ops from its leaf still looks like a parameter
    assert (v.status, v.line) == ("non-leaf", 3)
    assert "`v = (torch.ones(3, 2).t() - 0.5).requires_grad_()`" in v.reason
    # an intermediate made from named tensors is an ordinary non-leaf
    assert "h" not in rows(report) and report.non_leaves == ["h"]


def test_a_frozen_parameter_is_named_frozen_not_computed(script):
    # nn.init's in-place writes are not a computation: the fix is requires_grad, not the inputs
    report = grad_report(
        str(
            script("""
        torch.manual_seed(0)
        backbone = nn.Linear(4, 3)
        head = nn.Linear(3, 2)
        for p in backbone.parameters():
            p.requires_grad_(False)
        loss = head(backbone(torch.randn(5, 4)).relu()).sum()
        loss.backward()
        """)
        )
    )
    r = rows(report)
    for name in ("backbone.weight", "backbone.bias"):
        assert r[name].status == "no-grad-required"
        assert r[name].reason == (
            "requires_grad=False: a frozen parameter (its requires_grad was turned off)"
        )
    assert r["head.weight"].status == "ok"
