"""The runner: scripts see detachviz as torch, and the interpreter is left as it was."""

from __future__ import annotations

import sys

import pytest

from detachviz.runner import RootError, pick_roots, run_script


def test_import_torch_resolves_to_detachviz_and_is_restored(script):
    before = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    path = script("""
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        from torch import autograd
        kind = torch.__name__, nn.__name__, F.__name__, autograd.__name__
    """)
    result = run_script(path)
    assert result.error is None, result.error_text
    assert result.namespace["kind"] == (
        "detachviz.torch", "detachviz.nn", "detachviz.nn.functional", "detachviz.torch.autograd"
    )  # fmt: skip
    after = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    assert after == before


def test_prebound_names_for_snippets_without_imports(script):
    result = run_script(script("y = T.ones(2) + torch.zeros(2)\nok = callable(make_dot)\n"))
    assert result.error is None and result.namespace["ok"] is True


def test_argv_and_main_and_path_like_python(script):
    path = script("""
        import sys
        argv = list(sys.argv)
        main = __name__
        here = sys.path[0]
    """)
    old_argv, old_path = list(sys.argv), list(sys.path)
    result = run_script(path, ["--lr", "0.1"])
    assert result.namespace["argv"] == [str(path), "--lr", "0.1"]
    assert result.namespace["main"] == "__main__"
    assert result.namespace["here"] == str(path.parent.resolve())
    assert sys.argv == old_argv and sys.path == old_path


def test_script_can_import_its_sibling_module(script):
    script("def double(x):\n    return x * 2\n", name="helper.py")
    result = run_script(script("from helper import double\nv = double(torch.ones(1)).item()\n"))
    assert result.namespace["v"] == 2.0


def test_quiet_keeps_prints_and_warnings(script, capsys):
    result = run_script(script("print('hello')\nt = torch.tensor(torch.ones(2))\n"), quiet=True)
    assert result.stdout == "hello\n"
    assert capsys.readouterr().out == ""
    assert any("To copy construct from a tensor" in str(w.message) for w in result.warnings)


def test_recording_only_when_asked_or_make_dot_is_used(script):
    assert run_script(script("a = torch.ones(1) * 2\n")).recorder is None
    assert run_script(script("a = torch.ones(1) * 2\n"), record=True).recorder.records
    assert run_script(script("a = torch.ones(1)\nf = make_dot\n")).recorder is not None


def test_error_line_is_the_scripts(script):
    result = run_script(script("a = 1\n\nb = a / 0\n"))
    assert (result.exit_code, result.error_line) == (1, 3)
    assert isinstance(result.error, ZeroDivisionError)


def test_no_tensor_to_draw(script):
    with pytest.raises(RootError, match="no tensor to draw"):
        pick_roots(run_script(script("x = 1\n"), record=True))


def test_final_tensors_skip_intermediates(script):
    result = run_script(script("""
        a = torch.ones(2, requires_grad=True)
        b = a * 2
        c = b.sum()
        d = (a * 3).sum()
    """), record=True)  # fmt: skip
    assert [name for name, _ in pick_roots(result)] == ["c", "d"]


def test_each_script_starts_with_fresh_engine_state(script):
    run_script(
        script("""
        torch.set_grad_enabled(False)
        torch.autograd.set_detect_anomaly(True)
        torch.set_printoptions(precision=1)
        torch.set_default_dtype(torch.float64)
        torch.manual_seed(123)
    """)
    )
    result = run_script(script("""
        state = (torch.is_grad_enabled(), torch.is_anomaly_enabled(),
                 repr(torch.tensor([1.23456])), torch.get_default_dtype(), torch.initial_seed())
    """, name="second.py"))  # fmt: skip
    assert result.namespace["state"] == (
        True,
        False,
        "tensor([1.2346])",
        result.namespace["torch"].float32,
        0,
    )


def test_float_errors_are_silent_like_torch(script):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run_script(script("x = torch.tensor([1.0, 0.0])\ny = (x / 0, x.log())\n"))
    assert result.error is None
    assert [w for w in caught if issubclass(w.category, RuntimeWarning)] == []
    assert repr(result.namespace["y"][1]) == "tensor([0., -inf])"
