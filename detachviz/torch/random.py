"""torch.random: the default generator, the seeding functions and fork_rng."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from detachviz.engine import sampling

default_generator = sampling.default_generator
manual_seed = sampling.manual_seed
seed = sampling.seed
initial_seed = sampling.initial_seed
get_rng_state = sampling.get_rng_state
set_rng_state = sampling.set_rng_state


@contextlib.contextmanager
def fork_rng(
    devices: Any = None,
    enabled: bool = True,
    _caller: str = "fork_rng",
    _devices_kw: str = "devices",
    device_type: str = "cuda",
) -> Iterator[None]:
    """Run the block on a copy of the CPU generator's state, restored when it ends (there
    are no other devices here, so `devices` has nothing to fork)."""
    if not enabled:
        yield
        return
    saved = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(saved)
