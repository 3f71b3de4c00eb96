"""Progress of long commands: a plain callback below the CLI, a spinner on terminals only."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from detachviz import progress

ROOT = Path(__file__).resolve().parents[1]

SLOW = """
import time
import torch

x = torch.ones(3, requires_grad=True)
time.sleep(1.6)
loss = (x * 2).sum()
"""


def test_reports_reach_the_listener_only_inside_the_block():
    seen: list[str] = []
    progress.report("before")
    with progress.listening(seen.append):
        progress.report("running s.py")
        with progress.listening(lambda s: seen.append("inner " + s)):
            progress.report("drawing")
        progress.report("after inner")
    progress.report("after")
    assert seen == ["running s.py", "inner drawing", "after inner"]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_a_long_render_shows_a_spinner_on_a_terminal(tmp_path):
    script = tmp_path / "slow.py"
    script.write_text(SLOW)
    pid, fd = pty.fork()
    if pid == 0:  # the child: detachviz with its stderr on the pseudo-terminal
        os.chdir(tmp_path)
        os.execve(sys.executable, [sys.executable, "-m", "detachviz", "render", "slow.py"], _env())
    out = b""
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        out += data
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert b"running slow.py" in out  # the spinner's text, shown after a second
    assert b"wrote" in out and (tmp_path / "slow.svg").exists()


def test_a_long_render_is_silent_in_a_pipe(tmp_path):
    script = tmp_path / "slow.py"
    script.write_text(SLOW)
    done = subprocess.run(
        [sys.executable, "-m", "detachviz", "render", "slow.py"],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stderr == "wrote slow.svg\n"
    assert done.stdout == ""
