"""torch.random: the default generator, the seeding functions and fork_rng."""

from __future__ import annotations

from detachviz.engine import sampling as _rand
from detachviz.engine import state as _state

default_generator = _state.default_generator  # one object for the process's life
manual_seed = _rand.manual_seed
seed = _rand.seed
initial_seed = _rand.initial_seed
get_rng_state = _rand.get_rng_state
set_rng_state = _rand.set_rng_state
fork_rng = _rand.fork_rng
