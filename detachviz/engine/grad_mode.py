"""The modes a script switches: grad mode (no_grad, enable_grad, set_grad_enabled), inference
mode and anomaly mode (detect_anomaly, set_detect_anomaly), over the flags in `state`."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

from detachviz.engine import errors, state

# The flags themselves live in engine/state.py (`state.grad_enabled`, `state.inference`).


def is_grad_enabled() -> bool:
    """torch.is_grad_enabled()."""
    return state.grad_enabled


def set_mode(mode: bool) -> None:
    """Switch grad mode (what the context managers below and the backward pass use)."""
    state.grad_enabled = bool(mode)


class _Mode:
    """Base for the grad-mode context managers; also usable as decorators (like torch's)."""

    _mode: bool = True

    def __init__(self) -> None:
        self._prev: list[bool] = []

    def __enter__(self) -> None:
        self._prev.append(state.grad_enabled)
        set_mode(self._mode)

    def __exit__(self, *exc: object) -> None:
        set_mode(self._prev.pop())

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        mode = self._mode

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            prev = state.grad_enabled
            set_mode(mode)
            try:
                return fn(*args, **kwargs)
            finally:
                set_mode(prev)

        return wrapper

    def clone(self) -> _Mode:
        return type(self)()


class _NoParam(_Mode):
    """Accepts the bare decorator form torch allows: `@torch.no_grad` without parentheses."""

    def __new__(cls, orig_func: Callable[..., Any] | None = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)

    def __init__(self, orig_func: Callable[..., Any] | None = None) -> None:
        super().__init__()


class no_grad(_NoParam):  # noqa: N801 - torch's name
    """Disable gradient recording: results of ops never require grad."""

    _mode = False


class enable_grad(_NoParam):  # noqa: N801 - torch's name
    """Enable gradient recording inside a no_grad region."""

    _mode = True


class set_grad_enabled(_Mode):  # noqa: N801 - torch's name
    """Sets grad mode on call (as torch does: it works as a plain function too) and restores
    the previous mode when used as a context manager or decorator."""

    def __init__(self, mode: bool) -> None:
        super().__init__()
        self._mode = bool(mode)
        self._prev.append(state.grad_enabled)
        set_mode(self._mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        if self._prev:
            set_mode(self._prev.pop())

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        # used as @set_grad_enabled(False): undo the eager switch, apply per call
        if self._prev:
            set_mode(self._prev.pop())
        return super().__call__(fn)

    def clone(self) -> set_grad_enabled:
        return set_grad_enabled(self._mode)


class inference_mode(_Mode):  # noqa: N801 - torch's name
    """Like no_grad, and tensors created inside are inference tensors: they cannot be saved
    for backward later (torch's error)."""

    def __init__(self, mode: bool = True) -> None:
        super().__init__()
        self._on = bool(mode)
        self._mode = not mode
        self._prev_inf: list[bool] = []

    def __enter__(self) -> None:
        super().__enter__()
        self._prev_inf.append(state.inference)
        state.inference = self._on

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)
        state.inference = self._prev_inf.pop()

    def __call__(self, fn: Any) -> Any:
        mode = self._on

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with inference_mode(mode):
                return fn(*args, **kwargs)

        return wrapper

    def clone(self) -> inference_mode:
        return inference_mode(self._on)


def is_inference_mode_enabled() -> bool:
    return state.inference


class detect_anomaly:  # noqa: N801 - torch's name
    """Anomaly mode: switches the in-place error's hint (forward tracebacks not recorded)."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self.prev = dict(state.anomaly)
        warnings.warn(errors.ANOMALY_WARNING, UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        state.anomaly.update(enabled=True, check_nan=self.check_nan)

    def __exit__(self, *exc: object) -> None:
        state.anomaly.update(self.prev)


class set_detect_anomaly:  # noqa: N801 - torch's name
    """Sets anomaly mode on call; restores the previous mode when used with `with`."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = dict(state.anomaly)
        state.anomaly.update(enabled=bool(mode), check_nan=check_nan)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        state.anomaly.update(self.prev)


def is_anomaly_enabled() -> bool:
    return state.anomaly["enabled"] is True


def is_anomaly_check_nan_enabled() -> bool:
    return state.anomaly["check_nan"] is True
