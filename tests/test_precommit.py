"""The published pre-commit hook (.pre-commit-hooks.yaml), run through real `pre-commit`.

pre-commit builds one virtualenv and pip-installs detachviz into it from a snapshot of this
checkout, so the first test in this module is slow (~40 s); the others reuse that venv.
Set DETACHVIZ_SKIP_PRECOMMIT=1 to skip the module (it runs by default, and in CI).

Why a snapshot and `pre-commit run` rather than `pre-commit try-repo PATH`: try-repo clones
PATH's committed HEAD plus only *tracked* files with uncommitted changes (`git add -u` into a
shadow repo), so untracked new modules would be missing from the install; and it uses a fresh
temporary store on every call, so every call builds a new venv. Here every file git would
see (tracked + untracked-but-not-ignored) is committed once into a temp repo, and user repos
name it in their .pre-commit-config.yaml exactly as users name the published repo. That
behaves the same on a clean CI checkout and on a work tree with edits, with one venv build.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    os.environ.get("DETACHVIZ_SKIP_PRECOMMIT") == "1",
    reason="DETACHVIZ_SKIP_PRECOMMIT=1",
)

SCRIPT = textwrap.dedent(
    """\
    a = torch.ones(5, requires_grad=True)
    b = a**4
    c = a.detach() ** 6
    i = (b + c).sum()
    """
)
EDITED = SCRIPT.replace("a.detach() ** 6", "a**6")  # the cut goes: the drawing changes

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

CONFIG = """\
repos:
  - repo: {repo}
    rev: {rev}
    hooks:
      - id: detachviz
{options}"""


def sh(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def git(cwd: Path, env: dict[str, str], *args: str) -> str:
    done = sh(["git", *args], cwd, env)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


class Env:
    """A sandbox: HOME, the pre-commit store, and a snapshot repo of this checkout."""

    def __init__(self, root: Path) -> None:
        self.root = root
        home = root / "home"
        home.mkdir()
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("PRE_COMMIT", "GIT_", "VIRTUAL_ENV"))
        }
        self.env.update(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_CACHE_HOME=str(home / ".cache"),
            PRE_COMMIT_HOME=str(root / "store"),
            PRE_COMMIT_COLOR="never",
            GIT_AUTHOR_NAME="t",
            GIT_AUTHOR_EMAIL="t@example.com",
            GIT_COMMITTER_NAME="t",
            GIT_COMMITTER_EMAIL="t@example.com",
            GIT_CONFIG_NOSYSTEM="1",
        )
        self.snapshot, self.rev = self._snapshot(root / "detachviz-src")

    def _snapshot(self, dest: Path) -> tuple[Path, str]:
        listed = git(
            REPO_ROOT, self.env, "ls-files", "-z", "--cached", "--others", "--exclude-standard"
        )
        for rel in filter(None, listed.split("\0")):
            src = REPO_ROOT / rel
            if src.is_file():  # tracked but deleted in the work tree: skip
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest / rel)
        git(dest, self.env, "init", "-q")
        git(dest, self.env, "add", "-A")
        git(dest, self.env, "commit", "-q", "-m", "snapshot")
        return dest, git(dest, self.env, "rev-parse", "HEAD").strip()

    def user_repo(self, name: str, hook_options: str = "") -> Path:
        """A git repo with graph.py committed and a config using the published hook."""
        repo = self.root / name
        repo.mkdir()
        git(repo, self.env, "init", "-q")
        config = CONFIG.format(repo=self.snapshot, rev=self.rev, options=hook_options)
        (repo / ".pre-commit-config.yaml").write_text(config)
        (repo / "graph.py").write_text(SCRIPT)
        git(repo, self.env, "add", ".")
        git(repo, self.env, "commit", "-q", "-m", "script")
        return repo

    def hook(self, repo: Path, *files: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "pre_commit", "run", "--color", "never", "--files", *files]
        return sh(cmd, repo, self.env)

    def detachviz(self, repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
        """The snapshot's detachviz (the code the hook installed), on this python's deps."""
        env = dict(self.env, PYTHONPATH=str(self.snapshot))
        return sh([sys.executable, "-m", "detachviz", *args], repo, env)


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Env:
    if shutil.which("git") is None or not (REPO_ROOT / ".git").exists():
        pytest.skip("needs git and a git checkout of detachviz")
    return Env(tmp_path_factory.mktemp("precommit"))


def out(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout + done.stderr


def test_hook_rewrites_a_stale_image_then_passes(sandbox: Env) -> None:
    repo = sandbox.user_repo("user")
    image = repo / "graph.svg"

    # The first run creates the image next to the script (default: svg).
    first = sandbox.hook(repo, "graph.py")
    assert image.is_file(), out(first)
    assert image.read_bytes().startswith(b"<?xml"), out(first)
    git(repo, sandbox.env, "add", "graph.svg")
    git(repo, sandbox.env, "commit", "-q", "-m", "image")

    # Images current: the hook writes nothing and passes.
    again = sandbox.hook(repo, "graph.py")
    assert again.returncode == 0, out(again)
    assert "Passed" in again.stdout
    assert git(repo, sandbox.env, "status", "--porcelain") == ""
    assert sandbox.detachviz(repo, "render", "--check", "graph.py").returncode == 0

    # Editing the script makes --check fail and leaves the image untouched ...
    committed = image.read_bytes()
    (repo / "graph.py").write_text(EDITED)
    check = sandbox.detachviz(repo, "render", "--check", "graph.py")
    assert check.returncode == 1, out(check)
    assert "stale graph.svg" in check.stderr
    assert image.read_bytes() == committed

    # ... and the hook rewrites it: pre-commit fails once (a file was modified) ...
    rewrite = sandbox.hook(repo, "graph.py")
    assert rewrite.returncode == 1, out(rewrite)
    assert "files were modified by this hook" in rewrite.stdout
    assert image.read_bytes() != committed
    assert git(repo, sandbox.env, "status", "--porcelain").split() == [
        "M", "graph.py", "M", "graph.svg"
    ]  # fmt: skip

    # ... and passes on the next try, with --check agreeing.
    settled = sandbox.hook(repo, "graph.py")
    assert settled.returncode == 0, out(settled)
    assert sandbox.detachviz(repo, "render", "--check", "graph.py").returncode == 0


def test_hook_args_choose_folder_and_format(sandbox: Env) -> None:
    options = "        files: ^graph\\.py$\n        args: [--out-dir, docs/img, -f, png]\n"
    repo = sandbox.user_repo("user-args", options)
    (repo / "other.py").write_text("x = 1\n")  # python, but outside `files:`
    git(repo, sandbox.env, "add", "other.py")
    git(repo, sandbox.env, "commit", "-q", "-m", "other")

    done = sandbox.hook(repo, "graph.py", "other.py")
    image = repo / "docs" / "img" / "graph.png"
    assert image.read_bytes().startswith(PNG_MAGIC), out(done)
    assert not (repo / "docs" / "img" / "other.png").exists()
    assert not (repo / "graph.svg").exists()
    check = sandbox.detachviz(
        repo, "render", "--check", "--out-dir", "docs/img", "-f", "png", "graph.py"
    )
    assert check.returncode == 0, out(check)


def test_first_run_on_a_new_script_fails_having_written_the_image(sandbox: Env) -> None:
    repo = sandbox.user_repo("user-new")
    first = sandbox.hook(repo, "graph.py")
    assert (repo / "graph.svg").is_file(), out(first)
    assert first.returncode == 1, out(first)
    second = sandbox.hook(repo, "graph.py")
    assert second.returncode == 0, out(second)


def test_same_named_scripts_without_mirror_are_refused_not_overwritten(sandbox: Env) -> None:
    """The hook runs in one process (require_serial), so two `plot.py` with --out-dir are
    seen together and refused with one line naming the fix, never written over each other."""
    options = "        args: [--out-dir, img, -f, dot]\n"
    repo = sandbox.user_repo("user-same-stem-refused", options)
    for folder, code in (("a", SCRIPT), ("b", EDITED)):
        (repo / folder).mkdir()
        (repo / folder / "plot.py").write_text(code)
    git(repo, sandbox.env, "add", "a", "b")
    git(repo, sandbox.env, "commit", "-q", "-m", "two plots")
    for _ in range(2):
        run = sandbox.hook(repo, "a/plot.py", "b/plot.py")
        assert run.returncode == 1, out(run)
        assert "add --mirror" in run.stdout + run.stderr, out(run)
        assert not (repo / "img").exists(), out(run)


def test_same_named_scripts_in_split_batches_settle_with_mirror(sandbox: Env) -> None:
    """pre-commit hands files to parallel hook processes; with --mirror two `plot.py` in
    different folders get their own images, so the second run passes."""
    options = "        args: [--out-dir, img, --mirror, -f, dot]\n"
    repo = sandbox.user_repo("user-same-stem", options)
    for folder, code in (("a", SCRIPT), ("b", EDITED)):
        (repo / folder).mkdir()
        (repo / folder / "plot.py").write_text(code)
    git(repo, sandbox.env, "add", "a", "b")
    git(repo, sandbox.env, "commit", "-q", "-m", "two plots")

    first = sandbox.hook(repo, "a/plot.py", "b/plot.py")
    assert first.returncode == 1, out(first)  # images written: the commit stops once
    images = [repo / "img" / "a" / "plot.dot", repo / "img" / "b" / "plot.dot"]
    assert images[0].read_bytes() != images[1].read_bytes()
    git(repo, sandbox.env, "add", "img")
    for _ in range(3):  # however the files are batched, nothing is rewritten
        settled = sandbox.hook(repo, "a/plot.py", "b/plot.py")
        assert settled.returncode == 0, out(settled)
