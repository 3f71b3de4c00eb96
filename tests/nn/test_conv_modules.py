"""Conv, pooling, batch/group norm and Embedding modules against real torch: printing, the
seeded initialisation bit for bit, running statistics through train/eval, state_dict keys,
and outputs/gradients of small models with the same weights."""

from __future__ import annotations

import numpy as np
import pytest

import detachviz.nn as dnn
import detachviz.torch as dv

torch = pytest.importorskip("torch")
tnn = pytest.importorskip("torch.nn")

# constructor expressions evaluated under both namespaces (`nn`)
MODULES = [
    "nn.Conv2d(3, 8, 3)",
    "nn.Conv2d(3, 8, (3, 5), stride=2, padding=1, bias=False)",
    "nn.Conv2d(4, 8, 3, groups=2, dilation=2, padding='valid')",
    "nn.Conv2d(2, 4, 4, padding='same', padding_mode='replicate')",
    "nn.Conv1d(4, 6, 5, padding='same', padding_mode='reflect')",
    "nn.Conv3d(2, 3, 2)",
    "nn.ConvTranspose2d(8, 3, 4, stride=2, padding=1)",
    "nn.ConvTranspose2d(4, 2, 3, output_padding=1, stride=2, groups=2, bias=False)",
    "nn.ConvTranspose1d(3, 2, 3)",
    "nn.MaxPool2d(2)",
    "nn.MaxPool2d(3, 2, 1, ceil_mode=True)",
    "nn.MaxPool1d(2)",
    "nn.AvgPool2d(2)",
    "nn.AvgPool2d((2, 3), stride=1, padding=1)",
    "nn.AvgPool1d(3)",
    "nn.AdaptiveAvgPool2d((2, 3))",
    "nn.AdaptiveAvgPool2d(1)",
    "nn.AdaptiveMaxPool2d(2)",
    "nn.AdaptiveAvgPool1d(4)",
    "nn.BatchNorm1d(5)",
    "nn.BatchNorm2d(4, momentum=None, affine=False)",
    "nn.BatchNorm2d(4, bias=False, track_running_stats=False)",
    "nn.BatchNorm3d(2)",
    "nn.GroupNorm(2, 4)",
    "nn.GroupNorm(1, 3, affine=False)",
    "nn.Embedding(10, 3)",
    "nn.Embedding(10, 3, padding_idx=-1, max_norm=1.0)",
    "nn.Embedding(7, 2, padding_idx=0, scale_grad_by_freq=True, norm_type=1.0)",
]


def _build(expr: str, nn, ns, seed: int = 0):  # noqa: ANN001, ANN202
    ns.manual_seed(seed)
    return eval(expr, {"nn": nn})  # noqa: S307 - the constant table above


@pytest.mark.parametrize("expr", MODULES)
def test_repr_and_seeded_init_match_torch_bit_for_bit(expr: str) -> None:
    ours, theirs = _build(expr, dnn, dv), _build(expr, tnn, torch)
    assert repr(ours) == repr(theirs)
    ours_sd, theirs_sd = ours.state_dict(), theirs.state_dict()
    assert list(ours_sd) == list(theirs_sd)
    for key in theirs_sd:
        assert ours_sd[key].tolist() == theirs_sd[key].tolist(), key
        assert str(ours_sd[key].dtype) == str(theirs_sd[key].dtype)


def _lenet(nn):  # noqa: ANN001, ANN202
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(4, 6, 3, groups=2),
        nn.AvgPool2d(2, ceil_mode=True),
        nn.GroupNorm(3, 6),
        nn.Flatten(),
        nn.Linear(6 * 2 * 2, 3),
    )


def test_small_cnn_trains_like_torch_through_train_and_eval() -> None:
    dv.manual_seed(3)
    torch.manual_seed(3)
    ours, theirs = _lenet(dnn).double(), _lenet(tnn).double()
    x = np.random.default_rng(0).standard_normal((4, 1, 10, 10))
    for step in range(3):
        for model, ns in ((ours, dv), (theirs, torch)):
            model.train()
            out = model(ns.tensor(x + step))
            out.pow(2).mean().backward()
        for (n, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
            np.testing.assert_allclose(
                p.grad.numpy(), q.grad.numpy(), rtol=1e-9, atol=1e-12, err_msg=n
            )
            p.grad = None
            q.grad = None
    for (n, b), (_, c) in zip(ours.named_buffers(), theirs.named_buffers()):
        np.testing.assert_allclose(b.numpy(), c.numpy(), rtol=1e-12, err_msg=n)
    assert ours[1].num_batches_tracked.item() == 3
    ours.eval()
    theirs.eval()
    np.testing.assert_allclose(
        ours(dv.tensor(x)).detach().numpy(), theirs(torch.tensor(x)).detach().numpy(), rtol=1e-10
    )


def test_batchnorm_momentum_none_is_a_cumulative_average() -> None:
    for nn, ns in ((dnn, dv), (tnn, torch)):
        bn = nn.BatchNorm1d(2, momentum=None)
        for k in range(3):
            bn(ns.tensor([[1.0 + k, 2.0], [3.0, 5.0 * k]]))
        if ns is dv:
            ours = (bn.running_mean.tolist(), bn.running_var.tolist())
        else:
            theirs = (bn.running_mean.tolist(), bn.running_var.tolist())
    assert np.allclose(ours, theirs, rtol=1e-6)


def test_conv_transpose_output_size_and_embedding_from_pretrained() -> None:
    for nn, ns in ((dnn, dv), (tnn, torch)):
        ns.manual_seed(0)
        up = nn.ConvTranspose2d(2, 1, 3, stride=2, padding=1)
        y = up(ns.ones(1, 2, 4, 4), output_size=[8, 8])
        emb = nn.Embedding.from_pretrained(ns.tensor([[0.0, 1.0], [2.0, 3.0]]), padding_idx=1)
        row = emb(ns.tensor([1, 0]))
        res = (tuple(y.shape), round(y.sum().item(), 4), row.tolist(), emb.weight.requires_grad)
        if ns is dv:
            ours = res
        else:
            theirs = res
    assert ours == theirs


def test_embedding_padding_row_starts_zero_and_gets_no_gradient() -> None:
    dv.manual_seed(0)
    emb = dnn.Embedding(5, 3, padding_idx=2)
    assert emb.weight[2].tolist() == [0.0, 0.0, 0.0]
    emb(dv.tensor([2, 2, 1])).sum().backward()
    assert emb.weight.grad[2].tolist() == [0.0, 0.0, 0.0]
    assert emb.weight.grad[1].tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize(
    "expr, message",
    [
        ("nn.Conv2d(3, 4, 3, groups=2)", "in_channels must be divisible by groups"),
        ("nn.Conv2d(4, 3, 3, groups=2)", "out_channels must be divisible by groups"),
        ("nn.Conv2d(3, 4, 3, padding='full')", "Invalid padding string 'full'"),
        ("nn.Conv2d(3, 4, 3, stride=2, padding='same')", "not supported for strided"),
        ("nn.ConvTranspose2d(3, 4, 3, padding_mode='reflect')", 'Only "zeros" padding mode'),
        ("nn.GroupNorm(2, 3)", "num_channels (3) must be divisible by num_groups (2)"),
    ],
)
def test_bad_constructor_arguments_raise_torchs_errors(expr: str, message: str) -> None:
    for nn in (dnn, tnn):
        with pytest.raises(ValueError) as info:
            eval(expr, {"nn": nn})  # noqa: S307
        assert message in str(info.value)
