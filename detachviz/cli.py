"""The command line: thin click commands; the only module that imports click and rich.

Each command body orchestrates; decisions live in runner, pipeline and graph.explain.
Exit codes: 0 ok, 1 script/render failure or stale images, 2 usage, 3 internal, 130 interrupt.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from detachviz import __version__

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130

BUG_HINT = "this is a bug in detachviz; please report it with the script that triggered it"


class UserError(Exception):
    """A problem with the user's input: one line, no traceback, exit code attached."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)


def _error(message: str) -> None:
    from rich.markup import escape

    _console(stderr=True).print(f"[bold red]error:[/] {escape(message)}")


def _guarded(body: Callable[..., int]) -> Callable[..., int]:
    """Map every exception to one line and an exit code (the one place that does)."""

    def wrapper(*args: Any, **kwargs: Any) -> int:
        from detachviz.runner import ScriptNotFound

        try:
            return body(*args, **kwargs)
        except UserError as e:
            _error(str(e))
            return e.code
        except ScriptNotFound as e:
            _error(f"{e} (check the path)")
            return EXIT_USAGE
        except KeyboardInterrupt:
            _error("interrupted")
            return EXIT_INTERRUPTED
        except Exception as e:  # noqa: BLE001 - last resort: never a raw traceback
            _error(f"internal error: {type(e).__name__}: {e} ({BUG_HINT})")
            return EXIT_INTERNAL

    wrapper.__name__ = body.__name__
    wrapper.__doc__ = body.__doc__
    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="detachviz")
def cli() -> None:
    """See where gradients flow and where they are cut.

    Runs PyTorch-syntax scripts on detachviz's own numpy autograd engine (no PyTorch
    needed) and draws their computation graphs with every detach() visible.
    """


@cli.command(
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.argument("script", type=click.Path(dir_okay=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def run(script: str, args: tuple[str, ...]) -> None:
    """Run SCRIPT like `python SCRIPT`, with `import torch` on detachviz's engine."""
    sys.exit(_guarded(_run)(script, args))


def _run(script: str, args: tuple[str, ...]) -> int:
    from detachviz.runner import run_script

    result = run_script(script, list(args))
    sys.stdout.flush()
    if result.error_text:
        sys.stderr.write(result.error_text)
    return result.exit_code


def main() -> None:
    """Console-script entry point."""
    try:
        cli.main(standalone_mode=True)
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)


if __name__ == "__main__":
    main()
