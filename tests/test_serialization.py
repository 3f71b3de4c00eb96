"""torch.save / torch.load in PyTorch's zip format: files cross between real torch and
detachviz both ways with the same values, dtypes, shapes, strides, shared storages and
Parameter types; weights_only refuses what torch refuses."""

from __future__ import annotations

import io
import os
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from detachviz import nn
from detachviz import torch as T

REPO = Path(__file__).resolve().parents[1]


def _sample(ns):
    x = ns.arange(12.0).view(3, 4)
    return {
        "t": x,
        "col": x[:, 1],
        "i64": ns.tensor([1, -2]),
        "f64": ns.tensor([0.1, 1e300], dtype=ns.float64),
        "b": ns.tensor([True, False]),
        "u8": ns.tensor([255, 0], dtype=ns.uint8),
        "i32": ns.tensor([7], dtype=ns.int32),
        "h": ns.tensor([1.5], dtype=ns.float16),
        "scalar": ns.tensor(3.0),
        "empty": ns.empty(0, 2),
        "needs_grad": ns.ones(2, requires_grad=True),
        "p": ns.nn.Parameter(ns.full((2,), 0.5)),
        "size": x.shape,
        "dtype": ns.float64,
        "nested": [1, 2.5, "s", None, (1, (2, 3)), {"k": ns.zeros(1)}],
    }


def _describe(obj):
    """A structural description comparable across the two libraries."""
    if hasattr(obj, "untyped_storage"):
        return (
            type(obj).__name__,
            str(obj.dtype),
            tuple(obj.shape),
            tuple(obj.stride()),
            obj.storage_offset(),
            obj.requires_grad,
            np.asarray(obj.detach().numpy()).tolist(),
        )
    if isinstance(obj, dict):
        return {k: _describe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)) and type(obj).__name__ != "Size":
        return type(obj).__name__, [_describe(v) for v in obj]
    return type(obj).__name__, str(obj)


def _shares(d) -> bool:
    return d["col"].untyped_storage().data_ptr() == d["t"].untyped_storage().data_ptr()


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def test_a_file_saved_by_torch_loads_here(torch, tmp_path):
    path = tmp_path / "from_torch.pt"
    torch.save(_sample(torch), path)
    ours = T.load(path)
    assert _describe(ours) == _describe(torch.load(path))
    assert type(ours["p"]) is nn.Parameter and _shares(ours)


def test_a_file_saved_here_loads_in_torch(torch):
    buf = io.BytesIO()
    T.save(_sample(T), buf)
    buf.seek(0)
    theirs = torch.load(buf)
    assert _describe(theirs) == _describe(_sample(torch))
    assert type(theirs["p"]) is torch.nn.Parameter and _shares(theirs)


def test_a_script_run_by_detachviz_writes_what_torch_reads(torch, tmp_path):
    script = tmp_path / "save_it.py"
    script.write_text(
        "import sys, torch, torch.nn as nn\n"
        "torch.manual_seed(0)\n"
        "m = nn.Linear(3, 2)\n"
        "opt = torch.optim.Adam(m.parameters(), lr=0.1)\n"
        "m(torch.ones(4, 3)).sum().backward()\n"
        "opt.step()\n"
        "torch.save({'model': m.state_dict(), 'opt': opt.state_dict()}, sys.argv[1])\n",
        encoding="utf-8",
    )
    out = tmp_path / "ckpt.pt"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    subprocess.run(
        [sys.executable, "-m", "detachviz", "run", str(script), str(out)], check=True, env=env
    )
    ckpt = torch.load(out)
    torch.manual_seed(0)
    m = torch.nn.Linear(3, 2)
    opt = torch.optim.Adam(m.parameters(), lr=0.1)
    m(torch.ones(4, 3)).sum().backward()
    opt.step()
    assert ckpt["model"]["weight"].tolist() == m.state_dict()["weight"].tolist()
    assert ckpt["opt"]["param_groups"] == opt.state_dict()["param_groups"]
    for key in ("step", "exp_avg", "exp_avg_sq"):
        assert ckpt["opt"]["state"][1][key].tolist() == opt.state_dict()["state"][1][key].tolist()


def test_archive_layout_is_torchs(tmp_path):
    path = tmp_path / "model.pt"
    T.save({"a": T.ones(3), "b": T.zeros(5, dtype=T.int64)}, path)
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        assert names == [
            "model/data.pkl",
            "model/.format_version",
            "model/.storage_alignment",
            "model/byteorder",
            "model/data/0",
            "model/data/1",
            "model/version",
            "model/.data/serialization_id",
        ]
        for info in zf.infolist():
            assert info.compress_type == zipfile.ZIP_STORED
            if "/data/" in info.filename:
                data_at = info.header_offset + 30 + len(info.filename) + len(info.extra)
                assert data_at % 64 == 0
        assert zf.read("model/version") == b"3\n"
        assert np.frombuffer(zf.read("model/data/1"), np.int64).tolist() == [0] * 5


def test_round_trip_here_keeps_everything(torch):
    buf = io.BytesIO()
    T.save(_sample(T), buf)
    buf.seek(0)
    back = T.load(buf)
    # NOTE: against torch's own objects: the engine's strides of an empty tensor are numpy's
    assert _describe(back) == _describe(_sample(torch))
    assert _shares(back)


class Foo:
    """A class no weights_only load accepts by default."""


class Point:
    """A class a test allowlists."""


def test_weights_only_refuses_other_globals_like_torch(torch):
    messages = []
    for ns in (T, torch):
        buf = io.BytesIO()
        ns.save({"foo": Foo()}, buf)
        buf.seek(0)
        with pytest.raises(pickle.UnpicklingError) as e:
            ns.load(buf)
        messages.append(str(e.value).replace("\x1b[1m", "").replace("\x1b[0m", ""))
        buf.seek(0)
        assert type(ns.load(buf, weights_only=False)["foo"]) is Foo
    assert "Unsupported global: GLOBAL" in messages[0]
    assert messages[0].splitlines()[-3] == messages[1].splitlines()[-3]


def test_safe_globals_allow_a_class():
    buf = io.BytesIO()
    T.save(Point(), buf)
    buf.seek(0)
    with T.serialization.safe_globals([Point]):
        assert type(T.load(buf)) is Point


def test_refusals_are_clear(tmp_path):
    with pytest.raises(NotImplementedError, match="legacy"):
        T.save(T.ones(1), io.BytesIO(), _use_new_zipfile_serialization=False)
    old = tmp_path / "old.pt"
    old.write_bytes(b"\x80\x02not a zip")
    with pytest.raises(NotImplementedError, match="legacy"):
        T.load(old)
    with pytest.raises(RuntimeError, match="CPU only"):
        T.load(io.BytesIO(), map_location="cuda:0")
