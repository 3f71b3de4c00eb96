"""The process-wide engine state a script can change, and `reset()` back to a fresh start.

`python SCRIPT` starts every script in a new process; the runner runs many in one (batch
rendering, tests), so it resets this state before each script: grad mode, anomaly mode, the
forward-AD level, print options, the default dtype and the random generator's seed.
"""

from __future__ import annotations

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine import errors, forward_ad, grad_mode, printing, sampling


def reset() -> None:
    """Put every piece of global engine state back as a new process would have it."""
    grad_mode._enabled = True
    grad_mode._inference = False
    errors.ANOMALY.update(enabled=False, check_nan=True)
    if forward_ad._current_level >= 0:
        forward_ad.exit_dual_level()
    printing.set_printoptions(profile="default", sci_mode=None)
    dtypes.DEFAULT = dtypes.float32
    sampling.default_generator.manual_seed(0)


def float_errors_silenced() -> np.errstate:
    """numpy warns on 1/0, log(0), 0/0; torch silently gives inf and nan. Scripts run
    inside this context so their stderr is what torch would print."""
    return np.errstate(all="ignore")
