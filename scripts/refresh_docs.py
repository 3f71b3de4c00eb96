"""Regenerate every docs artifact the pre-commit hooks maintain, without pre-commit.

    python scripts/refresh_docs.py

Runs each local hook of .pre-commit-config.yaml (its entry, args) in order: the gallery and
README images, then the pasted command output. Useful when pre-commit's stash of unstaged
changes is unwelcome (several people editing the tree).
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    worst = 0
    for repo in config["repos"]:
        for hook in repo["hooks"]:
            cmd = shlex.split(hook["entry"]) + list(hook.get("args", []))
            if cmd[0] == "detachviz":
                cmd = [sys.executable, "-m", "detachviz", *cmd[1:]]
            elif cmd[0] == "python":
                cmd[0] = sys.executable
            print(f"== {hook['id']}", flush=True)
            worst = max(worst, subprocess.run(cmd, cwd=ROOT).returncode)
    return worst


if __name__ == "__main__":
    sys.exit(main())
