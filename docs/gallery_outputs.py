"""Refresh the command output pasted into the docs (gallery.md, cli.md): always real output.

Each pasted block is fenced by markers naming the command, run in docs/gallery/:

    <!-- output: detachviz grad pow_sum.py -->
    ```text
    ...replaced by the command's output...
    ```
    <!-- end output -->

A *session* block replays a terminal session: every `$ ` line is run in order by one bash,
in a scratch copy of the named folder (so commands may edit or write files), and the block
becomes the commands with their output:

    <!-- session: examples -->
    ```text
    $ detachviz render --check attached.py
    $ echo $?
    ```
    <!-- end session -->

`python docs/gallery_outputs.py` rewrites the blocks; `--check` writes nothing and exits 1 if
any block is stale (tests/test_docs.py and the pre-commit hook use it).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

DOCS = Path(__file__).resolve().parent
PAGE = DOCS / "gallery.md"
PAGES = (DOCS / "gallery.md", DOCS / "cli.md", DOCS / "json-format.md", DOCS.parent / "README.md")
WORKDIR = DOCS / "gallery"
SESSION = re.compile(
    r"(?P<head><!-- session: (?P<dir>[^>]*?) -->\n)```text\n(?P<body>.*?)```\n"
    r"(?P<tail><!-- end session -->)",
    re.DOTALL,
)

BLOCK = re.compile(
    r"(?P<head><!-- output: (?P<cmd>[^>]*?) -->\n)```text\n.*?```\n(?P<tail><!-- end output -->)",
    re.DOTALL,
)


def without_folder(text: str, folder: Path) -> str:
    """`text` with the folder the commands ran in left out of paths: tracebacks name scripts by
    absolute path, as python does, and the docs must not show this machine's folders."""
    return text.replace(str(folder.resolve()) + os.sep, "").replace(str(folder) + os.sep, "")


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
    shown = without_folder(done.stdout, WORKDIR)
    lines = [f"$ {command}", *(line.rstrip() for line in shown.rstrip().splitlines())]
    if done.returncode:
        lines.append(f"[exit {done.returncode}]")
    return "\n".join(lines) + "\n"


def session(folder: str, body: str) -> str:
    """Replay the `$ ` lines of `body` in one bash, in a scratch copy of docs/<folder>."""
    commands = [line[2:] for line in body.splitlines() if line.startswith("$ ")]
    script = [f'detachviz() {{ {shlex.quote(sys.executable)} -m detachviz "$@"; }}', "rc=0"]
    for cmd in commands:
        # `(exit $rc)` restores the previous command's status, so `echo $?` shows it.
        script.append(f"printf '%s\\n' {shlex.quote('$ ' + cmd)}; (exit $rc)")
        script.append(f"{{ {cmd}\n}} 2>&1; rc=$?")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONPATH"] = str(DOCS.parent)  # the checkout's detachviz, whatever is installed
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / folder
        shutil.copytree(DOCS / folder, work, ignore=shutil.ignore_patterns("__pycache__"))
        done = subprocess.run(
            ["bash", "-c", "\n".join(script)],
            cwd=work,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        shown = without_folder(done.stdout, work)
    return "".join(line.rstrip() + "\n" for line in shown.rstrip().splitlines())


def refresh(page: str) -> str:
    """The page with every marked block replaced by its command's current output."""
    commands = sorted({m["cmd"] for m in BLOCK.finditer(page)})
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:  # subprocesses
        outputs = dict(zip(commands, pool.map(run, commands)))

    def body(m: re.Match[str]) -> str:
        return f"{m['head']}```text\n{outputs[m['cmd']]}```\n{m['tail']}"

    def replay(m: re.Match[str]) -> str:
        return f"{m['head']}```text\n{session(m['dir'], m['body'])}```\n{m['tail']}"

    return SESSION.sub(replay, BLOCK.sub(body, page))


def main(argv: list[str]) -> int:
    stale = 0
    for path in PAGES:
        page = path.read_text(encoding="utf-8")
        new = refresh(page)
        if new == page:
            continue
        if "--check" in argv:
            print(f"{path.name}: pasted output is stale: run python docs/gallery_outputs.py")
            stale = 1
            continue
        path.write_text(new, encoding="utf-8")
        print(f"rewrote {path.name}")
    return stale


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
