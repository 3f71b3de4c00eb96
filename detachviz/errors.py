"""The errors detachviz reports to a user, each carrying its exit code; imports nothing.

Every layer raises these (or subclasses); only the CLI turns them into a line on stderr and
an exit code, in one place (`cli.exit_code_for`). Anything else that escapes is a bug: exit 3.
Ctrl-C is KeyboardInterrupt (exit 130) and SIGTERM is `Terminated`, a KeyboardInterrupt
(exit 143), so that neither can be swallowed by a script's `except Exception`.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1  # the script failed, a render failed, or --check found stale images
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_TERMINATED = 143  # 128 + SIGTERM

BUG_HINT = "this is a bug in detachviz; please report it with the script that triggered it"


class DetachvizError(Exception):
    """A problem detachviz reports as one line; `exit_code` says how the process ends."""

    exit_code = EXIT_FAILED


class UserError(DetachvizError):
    """The request itself is wrong (a bad option, a path that cannot be used): exit 2."""

    exit_code = EXIT_USAGE


class ScriptNotFound(UserError):
    """The script path does not name a readable script."""


class ScriptFailed(DetachvizError):
    """The script ran but did not give what was asked of it (no root to draw, ...): exit 1."""


class RootError(ScriptFailed):
    """No tensor to draw, or a `--root` name that names no tensor."""


class RenderError(DetachvizError):
    """A drawing could not be made. str() is one line; `.stderr` holds the program's output."""

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr


class OutputError(DetachvizError):
    """An output file could not be written (disk full, read-only folder, ...): exit 1."""


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: unwind like Ctrl-C (a script's `except Exception` does not swallow
    it, `finally` blocks remove temp files), then exit 143."""

    exit_code = EXIT_TERMINATED


def raise_terminated(signum: int, frame: object) -> None:
    """The SIGTERM handler of commands that write files (and of their worker processes)."""
    raise Terminated("terminated")
