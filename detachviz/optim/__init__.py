"""torch.optim: `Optimizer` and the optimizers (one module each), `lr_scheduler`.

Every update follows torch's single-tensor (foreach=False) implementation step for step,
written under no_grad with the in-place kernels of `kernels` (torch's FMA rounding), so
parameters change in place, their `_version` moves as under torch, and float32 values match
torch's bit for bit where the engine's elementwise ops do.
"""

from __future__ import annotations

from detachviz.engine import namespace as _ns
from detachviz.optim import lr_scheduler
from detachviz.optim.adadelta import Adadelta
from detachviz.optim.adagrad import Adagrad
from detachviz.optim.adam import Adam, AdamW
from detachviz.optim.adamax import Adamax
from detachviz.optim.lbfgs import LBFGS
from detachviz.optim.nadam import NAdam
from detachviz.optim.optimizer import Optimizer, required
from detachviz.optim.radam import RAdam
from detachviz.optim.rmsprop import RMSprop
from detachviz.optim.sgd import SGD

__all__ = [
    "LBFGS",
    "SGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "lr_scheduler",
    "required",
]

# a name torch has and detachviz lacks: "torch.optim.X is not supported by detachviz"
__getattr__ = _ns.module_getattr(globals(), "torch.optim", {}, methods=False)
