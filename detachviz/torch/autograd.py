"""`torch.autograd`: backward, grad, the legacy Variable, and grad-mode re-exports."""

from __future__ import annotations

from detachviz.engine import grad_mode as _gm
from detachviz.engine import namespace as _ns
from detachviz.engine.autograd import backward, grad
from detachviz.engine.custom_function import Function, function
from detachviz.engine.gradcheck import gradcheck, gradgradcheck

no_grad = _gm.no_grad
enable_grad = _gm.enable_grad
set_grad_enabled = _gm.set_grad_enabled
inference_mode = _gm.inference_mode
detect_anomaly = _gm.detect_anomaly
set_detect_anomaly = _gm.set_detect_anomaly
is_anomaly_enabled = _gm.is_anomaly_enabled
is_anomaly_check_nan_enabled = _gm.is_anomaly_check_nan_enabled
Variable = _ns.Variable

_SUBMODULES = {
    "forward_ad": "detachviz.engine.forward_ad",
    "functional": "detachviz.engine.jacobian",
    "graph": "detachviz.engine.graph_hooks",
}
__getattr__ = _ns.module_getattr(globals(), "torch.autograd", _SUBMODULES, methods=False)

__all__ = [
    "backward",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "Function",
    "function",
    "Variable",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
]
