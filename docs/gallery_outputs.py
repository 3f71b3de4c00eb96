"""Refresh the command output pasted into docs/gallery.md, so it is always real output.

Each pasted block is fenced by markers naming the command, run in docs/gallery/:

    <!-- output: detachviz grad pow_sum.py -->
    ```text
    ...replaced by the command's output...
    ```
    <!-- end output -->

`python docs/gallery_outputs.py` rewrites the blocks; `--check` writes nothing and exits 1 if
any block is stale (tests/test_docs.py and the pre-commit hook use it).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

DOCS = Path(__file__).resolve().parent
PAGE = DOCS / "gallery.md"
WORKDIR = DOCS / "gallery"

BLOCK = re.compile(
    r"(?P<head><!-- output: (?P<cmd>[^>]*?) -->\n)```text\n.*?```\n(?P<tail><!-- end output -->)",
    re.DOTALL,
)


def run(command: str) -> str:
    """What a terminal shows for `command`: stdout and stderr interleaved, then the exit code."""
    words = shlex.split(command)
    if words[0] == "detachviz":  # the checkout's own detachviz, whatever is on PATH
        words = [sys.executable, "-m", "detachviz", *words[1:]]
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["PYTHONUNBUFFERED"] = "1"  # keep the script's prints and warnings in order
    done = subprocess.run(
        words, cwd=WORKDIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    lines = [f"$ {command}", *(line.rstrip() for line in done.stdout.rstrip().splitlines())]
    if done.returncode:
        lines.append(f"[exit {done.returncode}]")
    return "\n".join(lines) + "\n"


def refresh(page: str) -> str:
    """The page with every marked block replaced by its command's current output."""
    commands = sorted({m["cmd"] for m in BLOCK.finditer(page)})
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:  # subprocesses
        outputs = dict(zip(commands, pool.map(run, commands)))

    def body(m: re.Match[str]) -> str:
        return f"{m['head']}```text\n{outputs[m['cmd']]}```\n{m['tail']}"

    return BLOCK.sub(body, page)


def main(argv: list[str]) -> int:
    page = PAGE.read_text(encoding="utf-8")
    new = refresh(page)
    if new == page:
        return 0
    if "--check" in argv:
        print(f"{PAGE.name}: pasted output is stale: run python docs/gallery_outputs.py")
        return 1
    PAGE.write_text(new, encoding="utf-8")
    print(f"rewrote {PAGE.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
