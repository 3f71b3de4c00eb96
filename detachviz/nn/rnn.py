"""Recurrent layers: `RNN`, `LSTM`, `GRU` and their cells, built the way torch's CPU kernels
build them (aten/src/ATen/native/RNN.cpp), so their graphs show torch's nodes.

- Each layer first projects the whole sequence (`linear(x, w_ih, b_ih)`, then `unbind(0)`),
  then runs its cell step by step: `linear(h, w_hh, b_hh) + x_t`, the gates split with
  `unsafe_chunk` (UnsafeSplitBackward0), the step outputs `stack`ed; a bidirectional layer
  `cat`s the two directions; dropout sits between layers in training.
- float32 LSTM layers are one fused node per layer and direction, `MkldnnRnnLayerBackward0`,
  as torch's oneDNN path makes them (float64 LSTMs are decomposed, as in torch).
- Gate order is torch's: LSTM (input, forget, cell, output); GRU (reset, update, new) with
  n = tanh(W_in x + b_in + r * (W_hn h + b_hn)) and h' = (h - n) * z + n.
- `reset_parameters` draws U(-1/sqrt(hidden), 1/sqrt(hidden)) for every parameter in
  registration order (w_ih, w_hh, b_ih, b_hh per layer and direction), as torch does.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from detachviz import torch as T
from detachviz.engine.ops import rnn as fused
from detachviz.nn import functional as F
from detachviz.nn import init
from detachviz.nn.module import Module, refuse_non_cpu
from detachviz.nn.parameter import Parameter
from detachviz.nn.utils.rnn import PackedSequence

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _linear(x: Any, w: Any, b: Any) -> Any:
    return F.linear(x, w, b)


# ---------------------------------------------------------------- one step of each cell
# `x` is the input's projection (linear(x, w_ih, b_ih)), computed before the step


def _tanh_step(x: Any, h: Any, w_hh: Any, b_hh: Any) -> Any:
    return T.tanh(_linear(h, w_hh, b_hh) + x)


def _relu_step(x: Any, h: Any, w_hh: Any, b_hh: Any) -> Any:
    return T.relu(_linear(h, w_hh, b_hh) + x)


def _lstm_step(x: Any, hc: Any, w_hh: Any, b_hh: Any) -> Any:
    h, c = hc
    i, f, g, o = fused.lstm_gates(*(_linear(h, w_hh, b_hh) + x).unsafe_chunk(4, 1))
    c = f * c + i * g
    return o * T.tanh(c), c


def _gru_step(x: Any, h: Any, w_hh: Any, b_hh: Any) -> Any:
    xr, xz, xn = x.unsafe_chunk(3, 1)
    hr, hz, hn = _linear(h, w_hh, b_hh).unsafe_chunk(3, 1)
    r = T.sigmoid(hr + xr)
    z = T.sigmoid(hz + xz)
    n = T.tanh(xn + hn * r)
    return (h - n) * z + n


_STEPS = {"RNN_TANH": _tanh_step, "RNN_RELU": _relu_step, "LSTM": _lstm_step, "GRU": _gru_step}


def _stepper(mode: str, params: list[Any]) -> Any:
    """One step of the cell with this layer's weights; an LSTM with proj_size projects its
    hidden state through weight_hr (h = h matmul w_hr^T, torch's MmBackward0)."""
    step = _STEPS[mode]
    w_hh, b_hh = params[1], params[3]
    w_hr = params[4] if len(params) > 4 else None
    if w_hr is None:
        return lambda x, hidden: step(x, hidden, w_hh, b_hh)

    def projected(x: Any, hidden: Any) -> Any:
        h, c = step(x, hidden, w_hh, b_hh)
        return h.matmul(w_hr.t()), c

    return projected


def _run_layer(mode: str, x: Any, hidden: Any, params: list[Any], reverse: bool) -> Any:
    """One layer in one direction over a (T, B, I) sequence: (stacked outputs, final hidden)."""
    step = _stepper(mode, params)
    inputs = _linear(x, params[0], params[2]).unbind(0)
    order = range(len(inputs) - 1, -1, -1) if reverse else range(len(inputs))
    outputs: list[Any] = [None] * len(inputs)
    for t in order:
        hidden = step(inputs[t], hidden)
        outputs[t] = hidden[0] if mode == "LSTM" else hidden
    return T.stack(outputs, 0), hidden


def _hidden_slice(hidden: Any, start: int, stop: int, lstm: bool) -> Any:
    if lstm:
        return tuple(h.narrow(0, start, stop - start) for h in hidden)
    return hidden.narrow(0, start, stop - start)


def _hidden_cat(hiddens: list[Any], lstm: bool) -> Any:
    if lstm:
        return tuple(T.cat([h[k] for h in hiddens], 0) for k in range(2))
    return T.cat(hiddens, 0)


def _run_packed_layer(
    mode: str, data: Any, batch_sizes: list[int], hidden: Any, params: list[Any], reverse: bool
) -> Any:
    """One layer in one direction over packed data (sum(batch_sizes), I), as torch's
    PackedLayer / ReversedPackedLayer: the batch shrinks as sequences end (their final hidden
    states sliced off and set aside, then cat'ed in batch order), or, run backwards, grows
    (the initial states of the sequences starting cat'ed on)."""
    step = _stepper(mode, params)
    lstm = mode == "LSTM"
    inputs = _linear(data, params[0], params[2])
    outputs: list[Any] = []
    if not reverse:
        offset, last = 0, batch_sizes[0]
        finished: list[Any] = []
        for n in batch_sizes:
            x_t = inputs.narrow(0, offset, n)
            offset += n
            if n < last:
                finished.append(_hidden_slice(hidden, n, last, lstm))
                hidden = _hidden_slice(hidden, 0, n, lstm)
            last = n
            hidden = step(x_t, hidden)
            outputs.append(hidden[0] if lstm else hidden)
        finished.append(hidden)
        return T.cat(outputs, 0), _hidden_cat(finished[::-1], lstm)
    initial = hidden
    offset, last = int(data.shape[0]), batch_sizes[-1]
    hidden = _hidden_slice(initial, 0, last, lstm)
    for n in reversed(batch_sizes):
        if n > last:
            hidden = _hidden_cat([hidden, _hidden_slice(initial, last, n, lstm)], lstm)
        x_t = inputs.narrow(0, offset - n, n)
        offset -= n
        last = n
        hidden = step(x_t, hidden)
        outputs.append(hidden[0] if lstm else hidden)
    return T.cat(outputs[::-1], 0), hidden


def _fused_lstm_layer(x: Any, hidden: Any, params: list[Any], reverse: bool) -> Any:
    w_ih, w_hh, b_ih, b_hh = params[:4]
    x = x.contiguous()  # oneDNN reads a dense sequence (a batch_first input is cloned)
    out, hy, cy = fused.mkldnn_lstm_layer(x, w_ih, w_hh, b_ih, b_hh, hidden[0], hidden[1], reverse)
    return out, (hy, cy)


def _permute_hidden(hx: Any, permutation: Any, lstm: bool) -> Any:
    if permutation is None:
        return hx
    if lstm:
        return tuple(h.index_select(1, permutation) for h in hx)
    return hx.index_select(1, permutation)


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the parameters, their init, the layer loop."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        refuse_non_cpu(device)
        if (
            not isinstance(dropout, int | float)
            or isinstance(dropout, bool)
            or not 0 <= dropout <= 1
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an "
                "element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}",
                UserWarning,
                stacklevel=3,
            )
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if not isinstance(proj_size, int) or proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        kwargs = {} if dtype is None else {"dtype": dtype}
        names = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else real_hidden * directions
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes: list[tuple[str, tuple[int, ...]]] = [
                    ("weight_ih", (gate_size, layer_input)),
                    ("weight_hh", (gate_size, real_hidden)),
                ]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                for name, shape in shapes:
                    setattr(self, name + suffix, Parameter(T.empty(shape, **kwargs)))
                    names.append(name + suffix)
        self._flat_weights_names = names
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self) -> None:
        """A no-op on CPU, as in torch."""

    @property
    def _flat_weights(self) -> list[Any]:
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        per = (4 if self.bias else 2) + (1 if self.proj_size > 0 else 0)
        flat = self._flat_weights
        return [flat[k : k + per] for k in range(0, len(flat), per)]

    def _layer_params(self, layer: int, direction: int) -> list[Any]:
        suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
        get = self._parameters.get
        params = [
            get("weight_ih" + suffix),
            get("weight_hh" + suffix),
            get("bias_ih" + suffix),
            get("bias_hh" + suffix),
        ]
        if self.proj_size > 0:
            params.append(get("weight_hr" + suffix))
        return params

    def _check_input(self, input: Any) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D instead"
            )
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                f"got {input.shape[-1]}"
            )

    def _check_hidden(self, hx: Any, expected: tuple[int, ...], what: str) -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(f"Expected {what} size {expected}, got {list(hx.shape)}")

    def _run(self, input: Any, hx: Any, batch_sizes: list[int] | None = None) -> tuple[Any, Any]:
        """The layer loop on a (T, B, I) input (or packed (N, I) data with its batch sizes)
        with hidden state(s) (L*D, B, H)."""
        is_lstm = self.mode == "LSTM"
        directions = 2 if self.bidirectional else 1
        # NOTE: torch's oneDNN LSTM takes only padded input without projections; packed data
        # and proj_size run decomposed (torch warns for the latter)
        fused = is_lstm and input.dtype == T.float32 and batch_sizes is None and self.proj_size == 0
        layer_input = input
        finals: list[Any] = []
        # torch's decomposed path unbinds the initial states (UnbindBackward0); the oneDNN
        # path indexes them (SelectBackward0)
        if fused:
            initial = (hx[0], hx[1]) if is_lstm else hx
        else:
            initial = (hx[0].unbind(0), hx[1].unbind(0)) if is_lstm else hx.unbind(0)
        for layer in range(self.num_layers):
            outs = []
            for direction in range(directions):
                idx = layer * directions + direction
                hidden = (initial[0][idx], initial[1][idx]) if is_lstm else initial[idx]
                params = self._layer_params(layer, direction)
                if fused:
                    out, final = _fused_lstm_layer(layer_input, hidden, params, direction == 1)
                elif batch_sizes is not None:
                    out, final = _run_packed_layer(
                        self.mode, layer_input, batch_sizes, hidden, params, direction == 1
                    )
                else:
                    out, final = _run_layer(self.mode, layer_input, hidden, params, direction == 1)
                outs.append(out)
                finals.append(final)
            layer_output = outs[0] if directions == 1 else T.cat(outs, outs[0].dim() - 1)
            if self.dropout != 0 and self.training and layer < self.num_layers - 1:
                layer_output = F.dropout(layer_output, self.dropout, True)
            layer_input = layer_output
        if is_lstm:
            h_n = T.stack([f[0] for f in finals], 0)
            c_n = T.stack([f[1] for f in finals], 0)
            return layer_input, (h_n, c_n)
        return layer_input, T.stack(finals, 0)

    def _initial_hidden(self, hx: Any, batch: int, dtype: Any) -> Any:
        """The given hidden state(s), checked against (L*D, B, H) (h: proj_size when set),
        or zeros of those shapes."""
        directions = 2 if self.bidirectional else 1
        cell = (self.num_layers * directions, batch, self.hidden_size)
        if self.mode != "LSTM":
            if hx is None:
                return T.zeros(cell, dtype=dtype)
            self._check_hidden(hx, cell, "hidden")
            return hx
        h_size = (cell[0], batch, self.proj_size or self.hidden_size)
        if hx is None:
            return T.zeros(h_size, dtype=dtype), T.zeros(cell, dtype=dtype)
        self._check_hidden(hx[0], h_size, "hidden[0]")
        self._check_hidden(hx[1], cell, "hidden[1]")
        return hx

    def _forward_packed(self, packed: PackedSequence, hx: Any) -> Any:
        """torch's packed path: hidden states permuted into the packed (sorted) batch order
        on the way in and back out (index_select), the output packed like the input."""
        data, sizes_t, sorted_indices, unsorted_indices = packed
        batch_sizes = [int(b) for b in sizes_t.tolist()]
        is_lstm = self.mode == "LSTM"
        if data.dim() != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {data.dim()}")
        if data.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                f"got {data.shape[-1]}"
            )
        if hx is not None:
            hx = _permute_hidden(hx, sorted_indices, is_lstm)
        hx = self._initial_hidden(hx, batch_sizes[0], data.dtype)
        output, hidden = self._run(data, hx, batch_sizes)
        out = PackedSequence(output, sizes_t, sorted_indices, unsorted_indices)
        return out, _permute_hidden(hidden, unsorted_indices, is_lstm)

    def forward(self, input: Any, hx: Any = None) -> Any:
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        if not isinstance(input, T.Tensor):  # as torch fails on it
            raise AttributeError(f"'{type(input).__name__}' object has no attribute 'dim'")
        self._check_input(input)
        is_lstm = self.mode == "LSTM"
        batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                states = hx if is_lstm else (hx,)
                for h in states:
                    if h.dim() != 2:
                        raise RuntimeError(
                            f"For unbatched 2-D input, hx should also be 2-D but got "
                            f"{h.dim()}-D tensor"
                        )
                hx = tuple(h.unsqueeze(1) for h in hx) if is_lstm else hx.unsqueeze(1)
        elif hx is not None:
            states = hx if is_lstm else (hx,)
            for h in states:
                if h.dim() != 3:
                    raise RuntimeError(
                        f"For batched 3-D input, hx should also be 3-D but got {h.dim()}-D tensor"
                    )
        if self.batch_first:
            input = input.transpose(0, 1)
        hx = self._initial_hidden(hx, input.shape[1], input.dtype)
        output, hidden = self._run(input, hx)
        if self.batch_first:
            # NOTE: torch transposes an LSTM's output back out of place, RNN's and GRU's in place
            if is_lstm:
                output = output.transpose(0, 1)
            else:
                output = fused.transpose_fresh_(output, 0, 1)
        if not batched:
            output = output.squeeze(batch_dim)
            hidden = tuple(h.squeeze(1) for h in hidden) if is_lstm else hidden.squeeze(1)
        return output, hidden

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(RNNBase):
    """torch.nn.RNN: h_t = tanh(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh) (or relu)."""

    def __init__(self, *args: Any, nonlinearity: str = "tanh", **kwargs: Any) -> None:
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        modes = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}
        if nonlinearity not in modes:
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        self.nonlinearity = nonlinearity  # NOTE: torch's repr of an RNN does not show it
        super().__init__(modes[nonlinearity], *args, **kwargs)


class LSTM(RNNBase):
    """torch.nn.LSTM: returns (output, (h_n, c_n))."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """torch.nn.GRU: returns (output, h_n)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


# ---------------------------------------------------------------- cells


class RNNCellBase(Module):
    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        refuse_non_cpu(device)
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        kwargs = {} if dtype is None else {"dtype": dtype}
        gate = num_chunks * hidden_size
        self.weight_ih = Parameter(T.empty((gate, input_size), **kwargs))
        self.weight_hh = Parameter(T.empty((gate, hidden_size), **kwargs))
        if bias:
            self.bias_ih = Parameter(T.empty(gate, **kwargs))
            self.bias_hh = Parameter(T.empty(gate, **kwargs))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = self.__dict__.get("nonlinearity", "tanh")
        if nonlinearity != "tanh":
            s += f", nonlinearity={nonlinearity}"
        return s

    def _prepare(self, input: Any, hx: Any, lstm: bool) -> tuple[Any, Any, bool]:
        if input.dim() not in (1, 2):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead"
            )
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {input.shape[-1]} expected "
                f"{self.input_size}"
            )
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = T.zeros((input.shape[0], self.hidden_size), dtype=input.dtype)
            hx = (zeros, zeros) if lstm else zeros
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0)) if lstm else hx.unsqueeze(0)
        return input, hx, batched

    def _ih(self, input: Any) -> Any:
        return _linear(input, self.weight_ih, self.bias_ih)


class RNNCell(RNNCellBase):
    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)

    def forward(self, input: Any, hx: Any = None) -> Any:
        input, hx, batched = self._prepare(input, hx, False)
        hh = _linear(hx, self.weight_hh, self.bias_hh)
        z = hh + self._ih(input)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        h = T.tanh(z) if self.nonlinearity == "tanh" else T.relu(z)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Any, hx: Any = None) -> Any:
        input, hx, batched = self._prepare(input, hx, True)
        hh = _linear(hx[0], self.weight_hh, self.bias_hh)
        i, f, g, o = fused.lstm_gates(*(hh + self._ih(input)).unsafe_chunk(4, 1))
        c = f * hx[1] + i * g
        h = o * T.tanh(c)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Any, hx: Any = None) -> Any:
        input, hx, batched = self._prepare(input, hx, False)
        h = _gru_step(self._ih(input), hx, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)
