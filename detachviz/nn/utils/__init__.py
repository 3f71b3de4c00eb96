"""torch.nn.utils: gradient clipping, parameter/vector conversion, packed sequences (rnn)."""

from __future__ import annotations

from detachviz.engine import namespace as _ns
from detachviz.nn.utils import rnn
from detachviz.nn.utils.clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_
from detachviz.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "parameters_to_vector",
    "rnn",
    "vector_to_parameters",
]

# a name torch has and detachviz lacks: "torch.nn.utils.X is not supported by detachviz"
__getattr__ = _ns.module_getattr(globals(), "torch.nn.utils", {}, methods=False)
