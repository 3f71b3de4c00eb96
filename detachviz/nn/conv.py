"""Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d: torch's weight layout, default
initialisation (kaiming_uniform_ with a=sqrt(5), then the bias, drawn in torch's order),
padding modes and printing."""

from __future__ import annotations

import math
from typing import Any

from detachviz import torch as T
from detachviz.nn import functional as F
from detachviz.nn import init
from detachviz.nn.module import Module, refuse_non_cpu
from detachviz.nn.parameter import Parameter

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")
_PADDING_STRINGS = ("same", "valid")


def _ntuple(v: Any, n: int) -> tuple[Any, ...]:
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return (v,) * n


class _ConvNd(Module):
    """What every convolution module shares (torch's _ConvNd)."""

    _nd = 2
    _transposed = False

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        output_padding: Any = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        refuse_non_cpu(device)
        nd = self._nd
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of "
                    f"{set(_PADDING_STRINGS)!r}"
                )
            if padding == "same" and any(s != 1 for s in _ntuple(stride, nd)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {list(_PADDING_MODES)}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _ntuple(kernel_size, nd)
        self.stride = _ntuple(stride, nd)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, nd)
        self.dilation = _ntuple(dilation, nd)
        self.transposed = self._transposed
        self.output_padding = _ntuple(output_padding, nd)
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's (left, right) pairs from the last dim, for the non-zeros padding modes
        if isinstance(self.padding, str):
            rev: list[int] = []
            if padding == "same":
                for d in reversed(range(nd)):
                    total = self.dilation[d] * (self.kernel_size[d] - 1)
                    rev += [total // 2, total - total // 2]
            else:
                rev = [0, 0] * nd
            self._reversed_padding_repeated_twice = rev
        else:
            self._reversed_padding_repeated_twice = [
                p for p in reversed(self.padding) for _ in (0, 1)
            ]
        kwargs = {} if dtype is None else {"dtype": dtype}
        if self._transposed:
            shape = (in_channels, out_channels // groups, *self.kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *self.kernel_size)
        self.weight = Parameter(T.empty(shape, **kwargs))
        if bias:
            self.bias = Parameter(T.empty(out_channels, **kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # NOTE: torch's default: kaiming_uniform(a=sqrt(5)) is U(-1/sqrt(fan_in), 1/sqrt(fan_in))
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            # torch's fan_in of the weight: dim 1 times the kernel's size
            fan_in = self.weight.shape[1] * math.prod(self.kernel_size)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        nd = len(self.kernel_size)
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}"
            f", stride={self.stride}"
        )
        if self.padding != (0,) * (len(self.padding) if not isinstance(self.padding, str) else 4):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * nd:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * nd:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _Conv(_ConvNd):
    _fn: Any = None

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(
            in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
            padding_mode, 0, device, dtype,
        )  # fmt: skip

    def _conv_forward(self, input: Any, weight: Any, bias: Any) -> Any:
        fn = type(self)._fn
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return fn(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Any) -> Any:
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """torch.nn.Conv1d: weight (out, in/groups, k)."""

    _nd = 1
    _fn = staticmethod(F.conv1d)


class Conv2d(_Conv):
    """torch.nn.Conv2d: weight (out, in/groups, kh, kw)."""

    _nd = 2
    _fn = staticmethod(F.conv2d)


class Conv3d(_Conv):
    """torch.nn.Conv3d: weight (out, in/groups, kd, kh, kw)."""

    _nd = 3
    _fn = staticmethod(F.conv3d)


class _ConvTranspose(_ConvNd):
    _transposed = True
    _fn: Any = None

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(
            in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
            padding_mode, output_padding, device, dtype,
        )  # fmt: skip

    def _output_padding(self, input: Any, output_size: Any) -> tuple[int, ...]:
        """torch's _ConvTransposeNd._output_padding: what makes the output `output_size`."""
        if output_size is None:
            return self.output_padding
        nd = self._nd
        size = list(output_size)
        if len(size) == nd + 2 or len(size) == nd + 1:
            size = size[-nd:]
        if len(size) != nd:
            raise ValueError(
                f"ConvTranspose{nd}D: for {input.dim()}D input, output_size must have {nd} or "
                f"{nd + 2} elements (got {len(output_size)})"
            )
        spatial = input.shape[-nd:]
        res = []
        for d in range(nd):
            smallest = (
                (spatial[d] - 1) * self.stride[d]
                - 2 * self.padding[d]
                + self.dilation[d] * (self.kernel_size[d] - 1)
                + 1
            )
            largest = smallest + self.stride[d] - 1
            if not smallest <= size[d] <= largest:
                raise ValueError(
                    f"requested an output size of {size}, but valid sizes range from "
                    f"{[smallest]} to {[largest]} (for an input of {list(spatial)})"
                )
            res.append(size[d] - smallest)
        return tuple(res)

    def forward(self, input: Any, output_size: Any = None) -> Any:
        op = self._output_padding(input, output_size)
        fn = type(self)._fn
        return fn(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                  self.dilation)  # fmt: skip


class ConvTranspose1d(_ConvTranspose):
    """torch.nn.ConvTranspose1d: weight (in, out/groups, k)."""

    _nd = 1
    _fn = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTranspose):
    """torch.nn.ConvTranspose2d: weight (in, out/groups, kh, kw)."""

    _nd = 2
    _fn = staticmethod(F.conv_transpose2d)
