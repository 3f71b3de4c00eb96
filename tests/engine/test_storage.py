"""Storage and version-counter sharing: views, detach(), .data, clone, copies."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import detachviz.torch as torch


def _same(a, b):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return a.storage().data_ptr() == b.storage().data_ptr()


def _table(torch):
    p = torch.ones((4, 5), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = {
            "p": p,
            "q": p,
            "r": p.data,
            "s": p.detach(),
            "t": p.data.clone(),
            "u": p.clone(),
            "v": p.detach().clone(),
            "w": torch.empty_like(p).copy_(p),
            "x": torch.tensor(p),
        }
    return {k: _same(p, v) for k, v in rows.items()}


def test_storage_table_matches_seed():
    assert _table(torch) == {
        "p": True,
        "q": True,
        "r": True,
        "s": True,
        "t": False,
        "u": False,
        "v": False,
        "w": False,
        "x": False,
    }


def test_storage_table_matches_torch(rt):
    assert _table(torch) == _table(rt)


@pytest.mark.parametrize(
    "make",
    [
        lambda x: x.detach(),
        lambda x: x.view(2, 2),
        lambda x: x.reshape(4),
        lambda x: x.t(),
        lambda x: x.transpose(0, 1),
        lambda x: x.permute(1, 0),
        lambda x: x.unsqueeze(0),
        lambda x: x[1:],
        lambda x: x[0],
        lambda x: x.flatten(),
        lambda x: x.expand(3, 2, 2),
    ],
)
def test_views_and_detach_share_storage_and_version(make):
    x = torch.ones(2, 2)
    y = make(x)
    assert _same(x, y)
    x.add_(1)
    assert y._version == x._version == 1
    assert float(y.sum()) == 2.0 * y.numel()


def test_data_has_fresh_version_counter():
    x = torch.ones(3, requires_grad=True)
    d = x.data
    d.add_(1)
    assert d._version == 1 and x._version == 0
    assert x.tolist() == [2.0, 2.0, 2.0]
    assert d.requires_grad is False and d.grad_fn is None and d._base is None


def test_base_of_views_is_the_root_and_detach_has_none():
    x = torch.ones(4, requires_grad=True)
    v = x[1:]
    assert v._base is x and v[1:]._base is x
    assert x.detach()._base is None
    assert x._base is None


def test_detach_of_result_shares_memory_seed():
    t1 = torch.FloatTensor([1.0, 2.0])
    v1 = torch.autograd.Variable(t1)
    v2 = torch.autograd.Variable(torch.FloatTensor([2.0, 3.0]))
    v3 = v1 + v2
    v3.detach().data.add_(t1)
    assert v3.tolist() == [4.0, 7.0]


def test_reshape_copies_when_not_contiguous():
    x = torch.ones(2, 3)
    y = x.t().reshape(6)
    assert not _same(x, y)
    assert y._base is None or not _same(y, x)


def test_clone_and_tensor_copy_have_own_version():
    x = torch.ones(3)
    c = x.clone()
    x.add_(1)
    assert c._version == 0 and c.tolist() == [1.0, 1.0, 1.0]


def test_set_data_swaps_values():
    z = torch.ones(2, requires_grad=True)
    z.data = torch.zeros(3)
    assert z.shape == (3,) and z.requires_grad and z.tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got numpy.ndarray"):
        z.data = np.ones(2)


def test_numpy_shares_memory_and_from_numpy():
    x = torch.zeros(3)
    a = x.numpy()
    a[0] = 5
    assert x[0].item() == 5.0
    b = np.arange(3.0)
    t = torch.from_numpy(b)
    assert t.dtype is torch.float64
    b[1] = 9
    assert t.tolist() == [0.0, 9.0, 2.0]


def test_untyped_storage_and_data_ptr():
    x = torch.ones(2, 3)
    assert x.untyped_storage().data_ptr() == x.data_ptr()
    assert x[1].data_ptr() - x.data_ptr() == 12
    assert x[1].storage_offset() == 3


def test_version_bumps_on_every_inplace():
    x = torch.ones(3)
    v = x[1:]
    x.add_(1)
    x.mul_(2)
    x[0] = 3.0
    v.zero_()
    x += 1
    assert x._version == 5 and v._version == 5
