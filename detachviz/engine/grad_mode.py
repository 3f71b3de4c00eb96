"""Grad mode: the module-level flag ops read, and no_grad / enable_grad / set_grad_enabled."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

# NOTE: a plain module attribute, read by every op as `grad_mode._enabled`: the cheapest check
# Python allows. torch's flag is thread local; scripts here are single threaded.
_enabled = True
# inference_mode: tensors made while it is on are inference tensors (see Tensor.is_inference)
_inference = False


def is_grad_enabled() -> bool:
    """torch.is_grad_enabled()."""
    return _enabled


def _set(mode: bool) -> None:
    global _enabled
    _enabled = bool(mode)


class _Mode:
    """Base for the grad-mode context managers; also usable as decorators (like torch's)."""

    _mode: bool = True

    def __init__(self) -> None:
        self._prev: list[bool] = []

    def __enter__(self) -> None:
        self._prev.append(_enabled)
        _set(self._mode)

    def __exit__(self, *exc: object) -> None:
        _set(self._prev.pop())

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        mode = self._mode

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            prev = _enabled
            _set(mode)
            try:
                return fn(*args, **kwargs)
            finally:
                _set(prev)

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
        self._prev.append(_enabled)
        _set(self._mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        if self._prev:
            _set(self._prev.pop())

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        # used as @set_grad_enabled(False): undo the eager switch, apply per call
        if self._prev:
            _set(self._prev.pop())
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
        global _inference
        super().__enter__()
        self._prev_inf.append(_inference)
        _inference = self._on

    def __exit__(self, *exc: object) -> None:
        global _inference
        super().__exit__(*exc)
        _inference = self._prev_inf.pop()

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
    return _inference
