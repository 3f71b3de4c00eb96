"""Reliability (issue 11): never damage a file, run scripts exactly like python, survive
signals and odd input. Each test is a case a hostile user tried; docs/reliability.md lists
the guarantee each one holds."""

from __future__ import annotations

import json
import os
import re
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from detachviz.cli import cli

GRAPH = "a = torch.ones(2, requires_grad=True)\nb = (a * 2).sum()\n"


def invoke(*args: str, input: bytes | None = None):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def cli_process(*args: str, cwd: Path, **kwargs) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "detachviz", *args], cwd=cwd, capture_output=True, **kwargs
    )


def write(path: Path, code: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(code).lstrip(), encoding="utf-8")
    return path


def temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def one_error_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    return lines[0]


# ---- files: never damage anything ----------------------------------------------------


@pytest.mark.parametrize("how", ["same", "dotdot", "symlink", "hardlink", "default-json"])
def test_an_input_script_is_never_overwritten(tmp_path, how):
    script = write(tmp_path / "s.py", GRAPH)
    before = script.read_bytes()
    args = ["render", str(script), "-f", "dot", "-o"]
    if how == "same":
        args.append(str(script))
    elif how == "dotdot":
        (tmp_path / "sub").mkdir()
        args.append(str(tmp_path / "sub" / ".." / "s.py"))
    elif how == "symlink":
        (tmp_path / "link.dot").symlink_to(script)
        args.append(str(tmp_path / "link.dot"))
    elif how == "hardlink":
        os.link(script, tmp_path / "hard.dot")
        args.append(str(tmp_path / "hard.dot"))
    else:  # `render x.json -f json`: the default output is the script itself
        script = write(tmp_path / "x.json", GRAPH)
        args = ["render", str(script), "-f", "json"]
    result = invoke(*args)
    assert result.exit_code == 2
    assert "is an input script: refusing to write" in one_error_line(result.stderr)
    assert script.read_bytes() == before


def test_output_onto_dev_null_writes_it_and_keeps_the_device(tmp_path):
    script = write(tmp_path / "s.py", GRAPH)
    result = invoke("render", str(script), "-o", "/dev/null", "-f", "dot")
    assert result.exit_code == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_output_onto_a_fifo_is_written_into_it(tmp_path):
    script = write(tmp_path / "s.py", GRAPH)
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    result = invoke("render", str(script), "-o", str(fifo), "-f", "dot")
    reader.join(timeout=30)
    assert result.exit_code == 0
    assert got and got[0].startswith(b"digraph")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert temps(tmp_path) == []


@pytest.mark.parametrize("spelling", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
def test_dev_stdout_is_like_dash(tmp_path, spelling):
    script = write(tmp_path / "s.py", GRAPH)
    dash = cli_process("render", str(script), "-o", "-", "-f", "dot", cwd=tmp_path)
    named = cli_process("render", str(script), "-o", spelling, "-f", "dot", cwd=tmp_path)
    assert named.returncode == 0 and named.stdout == dash.stdout
    assert named.stdout.startswith(b"digraph") and named.stderr == b""


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_a_new_image_gets_0666_minus_umask(tmp_path, umask):
    script = write(tmp_path / "s.py", GRAPH)
    old = os.umask(umask)
    try:
        assert invoke("render", str(script)).exit_code == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "s.svg").st_mode) == 0o666 & ~umask


def test_a_rewritten_image_keeps_its_mode(tmp_path):
    script = write(tmp_path / "s.py", GRAPH)
    image = tmp_path / "s.svg"
    image.write_bytes(b"old")
    image.chmod(0o640)
    assert invoke("render", str(script)).exit_code == 0
    assert image.read_bytes().startswith(b"<?xml")
    assert stat.S_IMODE(os.stat(image).st_mode) == 0o640


@pytest.mark.parametrize("length", [242, 250, 255])
def test_output_names_up_to_name_max_work(tmp_path, length):
    script = write(tmp_path / "s.py", GRAPH)
    name = "a" * (length - 4) + ".svg"
    result = invoke("render", str(script), "-o", str(tmp_path / name))
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / name).read_bytes().startswith(b"<?xml")
    assert temps(tmp_path) == []


@pytest.mark.parametrize(
    ("out", "fmt", "ok"),
    [
        ("g.png", "svg", False),
        ("g.svg", "png", False),
        ("g.dot", "json", False),
        ("g.svg", "svg", True),
        ("g.jpeg", "jpg", True),  # an alias names the same format
        ("g.gv", "dot", True),
        ("g.out", "svg", True),  # a suffix that names no format says nothing
    ],
)
def test_a_suffix_contradicting_f_is_a_usage_error(tmp_path, out, fmt, ok):
    script = write(tmp_path / "s.py", GRAPH)
    result = invoke("render", str(script), "-o", str(tmp_path / out), "-f", fmt)
    if ok:
        assert result.exit_code == 0 and (tmp_path / out).exists()
        return
    assert result.exit_code == 2
    line = one_error_line(result.stderr)
    assert out.rsplit(".", 1)[1] in line and fmt in line
    assert not (tmp_path / out).exists()


# A harness that renders with the final rename slowed down, so a signal lands mid-write
# (the temp file complete, the old image not yet replaced).
SLOW_RENAME = """
import os, sys, time
real = os.replace
def slow(a, b):
    print("renaming", flush=True)
    time.sleep(30)
    real(a, b)
os.replace = slow
from detachviz.cli import main
sys.argv = ["detachviz", "render", sys.argv[1]]
main()
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL], ids=str)
def test_a_signal_mid_write_keeps_the_old_image_and_no_temp_file(tmp_path, sig):
    script = write(tmp_path / "s.py", GRAPH)
    image = tmp_path / "s.svg"
    image.write_bytes(b"old image")
    harness = write(tmp_path / "harness.py", SLOW_RENAME)
    proc = subprocess.Popen(
        [sys.executable, str(harness), str(script)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stdout.readline() == b"renaming\n"
    assert len(temps(tmp_path)) == 1  # the new image, complete, waiting for its rename
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert image.read_bytes() == b"old image"
    if sig == signal.SIGKILL:
        assert proc.returncode == -9
        # Nothing can clean up after kill -9; the next render into the folder does.
        assert invoke("render", str(script)).exit_code == 0
        assert image.read_bytes().startswith(b"<?xml")
    else:
        assert proc.returncode == {signal.SIGTERM: 143, signal.SIGINT: 130}[sig]
        assert err.decode().strip() in ("error: terminated", "error: interrupted")
    assert temps(tmp_path) == []


def test_a_full_disk_fails_cleanly(tmp_path):
    import resource

    script = write(tmp_path / "s.py", GRAPH)
    image = tmp_path / "s.svg"
    image.write_bytes(b"old image")

    def small_disk() -> None:  # every file this process writes is capped at 100 bytes
        resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))

    result = cli_process("render", str(script), cwd=tmp_path, preexec_fn=small_disk)
    assert result.returncode == 1
    assert "cannot write" in result.stderr.decode() and b"Traceback" not in result.stderr
    assert image.read_bytes() == b"old image"
    assert temps(tmp_path) == []


def test_a_read_only_folder_fails_cleanly(tmp_path):
    """A read-only file system (a private tmpfs mount: even root cannot write there)."""
    import shutil

    if shutil.which("unshare") is None:
        pytest.skip("needs unshare(1) for a private read-only mount")
    script = write(tmp_path / "s.py", GRAPH)
    out = tmp_path / "ro"
    out.mkdir()
    command = (
        f"mount -t tmpfs -o ro,size=1m tmpfs {out} || exit 99; "
        f"exec {sys.executable} -m detachviz render {script} --out-dir {out}"
    )
    result = subprocess.run(
        ["unshare", "-rm", "sh", "-c", command], capture_output=True, text=True, check=False
    )
    if result.returncode == 99 or "unshare:" in result.stderr:
        pytest.skip(f"no private mounts here: {result.stderr.strip()}")
    assert result.returncode == 1, result.stderr
    assert "cannot write" in result.stderr and "Read-only file system" in result.stderr
    assert "Traceback" not in result.stderr


RACE = """
import sys
from detachviz.pipeline import write_atomic
data = sys.argv[2].encode() * 20000
for _ in range(20):
    write_atomic(sys.argv[1], data)
"""


def test_two_processes_writing_one_output_never_mix(tmp_path):
    harness = write(tmp_path / "race.py", RACE)
    target = tmp_path / "g.svg"
    procs = [
        subprocess.Popen([sys.executable, str(harness), str(target), word])
        for word in ("first ", "second ")
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    assert target.read_bytes() in (b"first " * 20000, b"second " * 20000)
    assert temps(tmp_path) == []


# ---- scripts run exactly like `python SCRIPT` ----------------------------------------

PROBE = '''
"""the probe's docstring"""
import sys
print(repr(__doc__), __spec__ is None, repr(__package__), __file__, __name__)
print(sys.modules["__main__"].__dict__ is globals(), repr(sys.path[0]), sys.argv)
'''


def _python_and_us(tmp_path: Path, target: str, stdin: bytes | None = None) -> tuple[str, str]:
    python = subprocess.run(
        [sys.executable, target], cwd=tmp_path, input=stdin, capture_output=True, check=True
    )
    ours = cli_process("run", target, cwd=tmp_path, input=stdin, check=True)
    return python.stdout.decode(), ours.stdout.decode()


@pytest.mark.parametrize(
    "kind", ["file", "relative", "symlink", "package", "linked-package", "stdin"]
)
def test_main_module_attributes_are_pythons(tmp_path, kind):
    write(tmp_path / "sub" / "probe.py", PROBE)
    write(tmp_path / "pkg" / "__main__.py", PROBE.replace("__spec__ is None", "__spec__.name"))
    (tmp_path / "links").mkdir()
    (tmp_path / "links" / "probe.py").symlink_to(tmp_path / "sub" / "probe.py")
    (tmp_path / "links" / "pkg").symlink_to(tmp_path / "pkg")
    target = {
        "file": str(tmp_path / "sub" / "probe.py"),
        "relative": "sub/probe.py",
        "symlink": "links/probe.py",
        "package": "pkg",
        "linked-package": "links/pkg",
        "stdin": "-",
    }[kind]
    stdin = PROBE.encode() if kind == "stdin" else None
    python, ours = _python_and_us(tmp_path, target, stdin)
    assert ours == python


def test_unittest_main_finds_the_scripts_tests(tmp_path):
    script = write(
        tmp_path / "test_x.py",
        """
        import unittest
        class T(unittest.TestCase):
            def test_one(self):
                self.assertEqual((torch.ones(2) * 2).sum().item(), 4.0)
            def test_two(self):
                self.assertTrue(False)
        unittest.main()
        """,
    )
    result = cli_process("run", str(script), cwd=tmp_path)
    assert result.returncode == 1
    assert "Ran 2 tests" in result.stderr.decode() and "FAILED (failures=1)" in (
        result.stderr.decode()
    )


def test_a_class_the_script_defines_pickles(tmp_path):
    script = write(
        tmp_path / "p.py",
        """
        import pickle
        class Point:
            def __init__(self, x):
                self.x = x
        print(pickle.loads(pickle.dumps(Point(3))).x)
        """,
    )
    assert cli_process("run", str(script), cwd=tmp_path).stdout == b"3\n"


def test_multiprocessing_pool_map_over_a_script_function(tmp_path):
    script = write(
        tmp_path / "mp.py",
        """
        import multiprocessing
        def square(x):
            return x * x
        if __name__ == "__main__":
            with multiprocessing.get_context("fork").Pool(2) as pool:
                print(pool.map(square, [1, 2, 3]))
        """,
    )
    result = cli_process("run", str(script), cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == b"[1, 4, 9]\n"


@pytest.mark.parametrize(
    ("raw", "printed"),
    [
        (b'\xef\xbb\xbfprint("bom")\n', "bom"),
        (b'# -*- coding: latin-1 -*-\nprint("caf\xe9")\n', "café"),
        (b'#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\nprint("\x80")\n', "€"),
    ],
    ids=["bom", "latin-1", "cp1252"],
)
def test_source_encodings_are_pythons(tmp_path, raw, printed):
    script = tmp_path / "enc.py"
    script.write_bytes(raw)
    result = cli_process("run", str(script), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode() == printed + "\n"


def test_a_bom_script_renders(tmp_path):
    script = tmp_path / "bom.py"
    script.write_bytes(b"\xef\xbb\xbf" + GRAPH.encode())
    assert invoke("render", str(script), "-f", "dot", "-o", "-").stdout.startswith("digraph")


def test_a_fifo_script_runs(tmp_path):
    fifo = tmp_path / "script.fifo"
    os.mkfifo(fifo)
    feeder = threading.Thread(target=lambda: fifo.write_text("print('from a fifo')\n"))
    feeder.start()
    result = cli_process("run", str(fifo), cwd=tmp_path, timeout=60)
    feeder.join(timeout=10)
    assert result.returncode == 0 and result.stdout == b"from a fifo\n"


def test_a_folder_without_main_is_one_usage_line(tmp_path):
    (tmp_path / "lib").mkdir()
    result = invoke("run", str(tmp_path / "lib"))
    assert result.exit_code == 2
    assert "without a __main__.py" in one_error_line(result.stderr)


def test_a_script_on_stdin_renders_to_stdout(tmp_path):
    result = invoke("render", "-", "-f", "dot", input=GRAPH.encode())
    assert result.exit_code == 0 and result.stdout.startswith("digraph")


def test_os_chdir_moves_neither_the_image_nor_later_scripts(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "a.py", "import os\nos.chdir('elsewhere')\n" + GRAPH)
    (tmp_path / "elsewhere").mkdir()
    write(tmp_path / "b.py", GRAPH)
    result = invoke("render", "a.py", "b.py")
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "a.svg").exists() and (tmp_path / "b.svg").exists()
    assert list((tmp_path / "elsewhere").iterdir()) == []
    assert Path.cwd() == tmp_path


def test_each_script_of_a_batch_imports_its_own_helper(tmp_path):
    from detachviz.runner import run_script

    for folder, factor in (("one", 2), ("two", 3)):
        write(tmp_path / folder / "helper.py", f"FACTOR = {factor}\n")
        write(tmp_path / folder / "s.py", "from helper import FACTOR\n")
    first = run_script(tmp_path / "one" / "s.py")
    second = run_script(tmp_path / "two" / "s.py")
    assert (first.namespace["FACTOR"], second.namespace["FACTOR"]) == (2, 3)
    assert "helper" not in sys.modules


@pytest.mark.parametrize(
    ("ending", "code"),
    [("sys.exit(3)", 1), ("sys.exit('bye')", 1), ("sys.exit(0)", 0), ("sys.exit()", 0)],
)
def test_a_nonzero_exit_is_a_script_failure(tmp_path, ending, code):
    script = write(tmp_path / "s.py", GRAPH + f"import sys\n{ending}\n")
    rendered = invoke("render", str(script))
    assert rendered.exit_code == code
    if code:
        assert "failed" in rendered.stderr and "sys.exit" in rendered.stderr
        assert not (tmp_path / "s.svg").exists()
        assert invoke("render", str(script), "--allow-errors").exit_code == 0
        assert (tmp_path / "s.svg").exists()
    assert invoke("grad", str(script)).exit_code == code


def test_os_exit_ends_only_its_script(tmp_path):
    write(tmp_path / "a.py", GRAPH + "import os\nos._exit(0)\n")
    write(tmp_path / "b.py", GRAPH + "import os\nos._exit(4)\n")
    write(tmp_path / "c.py", GRAPH)
    result = cli_process("render", "a.py", "b.py", "c.py", "-f", "dot", cwd=tmp_path)
    assert result.returncode == 1
    assert (tmp_path / "a.dot").exists() and (tmp_path / "c.dot").exists()
    assert "failed b.dot" in result.stderr.decode() and "os._exit(4)" in result.stderr.decode()


def test_a_worker_that_dies_fails_only_its_own_script(tmp_path):
    write(tmp_path / "a.py", GRAPH + "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    for name in ("b", "c", "d"):
        write(tmp_path / f"{name}.py", GRAPH)
    scripts = ["a.py", "b.py", "c.py", "d.py"]
    result = cli_process("render", *scripts, "-f", "dot", "-j", "2", cwd=tmp_path)
    assert result.returncode == 1
    err = result.stderr.decode()
    assert "failed a.dot" in err and "BrokenProcessPool" not in err
    assert all((tmp_path / f"{n}.dot").exists() for n in "bcd")


def test_a_script_closing_stdout_is_not_an_internal_error(tmp_path):
    script = write(tmp_path / "s.py", "import sys\nprint('hi')\nsys.stdout.close()\n")
    result = cli_process("run", str(script), cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == b"hi\n"
    assert b"internal error" not in result.stderr
    closing = write(tmp_path / "r.py", GRAPH + "import sys\nsys.stdout.close()\n")
    rendered = invoke("render", str(closing), "-o", "-", "-f", "dot")
    assert rendered.exit_code == 0 and rendered.stdout.startswith("digraph")


def test_tensors_named_t_f_nn_are_kept(tmp_path):
    script = write(
        tmp_path / "s.py",
        "T = torch.ones(2, requires_grad=True)\nF = T * 2\nnn = F.sum()\nnn.backward()\n",
    )
    report = json.loads(invoke("grad", str(script), "--json").stdout)
    assert [leaf["name"] for leaf in report["leaves"]] == ["T"]
    assert report["root"] == "nn"
    model = json.loads(invoke("render", str(script), "-f", "json", "-o", "-").stdout)
    assert {n["name"] for n in model["nodes"]} >= {"T", "nn"}


def test_atexit_output_does_not_follow_the_image_on_stdout(tmp_path):
    script = write(tmp_path / "s.py", "import atexit\natexit.register(print, 'bye')\n" + GRAPH)
    result = cli_process("render", str(script), "-o", "-", "-f", "dot", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.rstrip().endswith(b"}")
    ran = cli_process("run", str(script), cwd=tmp_path)
    assert ran.stdout == b"bye\n"  # under `run` the handler prints, as under python


# ---- signals and parallel batches ----------------------------------------------------

SPIN = "import time\nwhile True:\n    time.sleep(0.01)\n"


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


@pytest.mark.parametrize(
    ("sig", "code", "group"),
    [(signal.SIGINT, 130, False), (signal.SIGTERM, 143, False), (signal.SIGINT, 130, True)],
    ids=["sigint-main", "sigterm-main", "ctrl-c-group"],
)
def test_an_interrupted_parallel_batch_ends_promptly_and_cleanly(tmp_path, sig, code, group):
    for name in ("a", "b", "c"):
        write(tmp_path / f"{name}.py", SPIN)
    proc = subprocess.Popen(
        [sys.executable, "-m", "detachviz", "render", "a.py", "b.py", "c.py", "-j", "2"],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while len(_children(proc.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    workers = _children(proc.pid)
    time.sleep(1.0)  # the workers are inside the scripts now
    if group:
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == code
    assert err.decode().strip() in ("error: interrupted", "error: terminated")
    time.sleep(0.2)
    assert [w for w in workers if Path(f"/proc/{w}").exists()] == []
    assert temps(tmp_path) == []


# ---- output is valid whatever the names ----------------------------------------------

NAMES = [
    ("ansi", "\x1b[31mred\x1b[0m"),
    ("bel", "ring\x07"),
    ("nul", "nul\x00byte"),
    ("surrogate", "lone\udc80"),
    ("del-c1", "\x7f\x85"),
]


@pytest.mark.parametrize(("case", "text"), NAMES, ids=[c for c, _ in NAMES])
@pytest.mark.parametrize("fmt", ["svg", "dot", "json"])
def test_any_text_in_a_name_or_error_gives_valid_output(tmp_path, case, text, fmt):
    script = write(
        tmp_path / "s.py",
        "m = nn.Linear(2, 1)\n"
        f"m.register_parameter({text!r}, nn.Parameter(torch.ones(1)))\n"
        "y = (m(torch.ones(2)) * getattr(m, " + repr(text) + ")).sum()\n"
        f"raise ValueError({text!r})\n",
    )
    result = invoke("render", str(script), "-f", fmt, "-o", "-", "--allow-errors")
    assert result.exit_code == 0, result.stderr
    data = result.stdout_bytes
    data.decode("utf-8")  # valid UTF-8
    if fmt == "svg":
        ET.fromstring(data)  # valid XML
        assert b"\\x" in data or b"\\u" in data  # the character is shown, escaped
    elif fmt == "json":
        model = json.loads(data)
        assert any(n["name"] and n["name"].startswith("m.") for n in model["nodes"])


def test_grad_json_is_strict_json(tmp_path):
    script = write(
        tmp_path / "s.py",
        """
        a = torch.tensor([0.0, 1.0], requires_grad=True)
        b = torch.tensor([1.0, 2.0], requires_grad=True)
        y = (a.log() * b).sum() + (b * float("nan")).sum()
        y.backward()
        """,
    )
    result = invoke("grad", str(script), "--json")
    assert result.exit_code == 0

    def refuse(constant: str) -> None:
        raise ValueError(f"not JSON: {constant}")

    report = json.loads(result.stdout, parse_constant=refuse)
    grads = {leaf["name"]: leaf["grad"]["values"] for leaf in report["leaves"]}
    assert grads["a"][0] in ("NaN", "Infinity", "-Infinity")
    assert grads["b"] == ["NaN", "NaN"]


def test_grad_after_a_later_failure_shows_the_gradient_status(tmp_path):
    script = write(tmp_path / "s.py", GRAPH + "b.backward()\nraise ValueError('later')\n")
    report = json.loads(invoke("grad", str(script), "--json").stdout)
    (leaf,) = report["leaves"]
    assert leaf["grad"]["values"] == [2.0, 2.0]
    assert leaf["status"] == "ok" and "raised before" not in leaf["reason"]


# ---- pre-commit: batches never collide -----------------------------------------------


def test_same_named_scripts_in_separate_batches_never_collide_with_mirror(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "a" / "plot.py", GRAPH)
    write(tmp_path / "b" / "plot.py", GRAPH.replace("(a * 2)", "a.exp()"))
    # pre-commit may hand each script to its own hook process: two invocations.
    for script in ("a/plot.py", "b/plot.py"):
        assert invoke("render", "--out-dir", "img", "--mirror", "-f", "dot", script).exit_code == 0
    first = {p: (tmp_path / "img" / p).read_bytes() for p in ("a/plot.dot", "b/plot.dot")}
    assert first["a/plot.dot"] != first["b/plot.dot"]
    again = invoke("render", "--out-dir", "img", "--mirror", "-f", "dot", "b/plot.py", "a/plot.py")
    assert again.exit_code == 0 and again.stderr.count("unchanged") == 2
    assert {p: (tmp_path / "img" / p).read_bytes() for p in first} == first


def test_same_named_scripts_in_one_batch_say_to_mirror(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "a" / "plot.py", GRAPH)
    write(tmp_path / "b" / "plot.py", GRAPH)
    result = invoke("render", "--out-dir", "img", "a/plot.py", "b/plot.py")
    assert result.exit_code == 2 and "add --mirror" in one_error_line(result.stderr)


@pytest.mark.parametrize("args", [["--mirror"], ["--mirror", "--out-dir", "img", "../s.py"]])
def test_mirror_misuse_is_one_usage_line(tmp_path, monkeypatch, args):
    write(tmp_path / "s.py", GRAPH)
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    result = invoke("render", *args, *([] if "../s.py" in args else ["../s.py"]))
    assert result.exit_code == 2 and "--mirror" in one_error_line(result.stderr)


def test_process_settings_a_script_changes_do_not_reach_the_next(tmp_path):
    from detachviz.runner import run_script

    changer = write(
        tmp_path / "a.py",
        """
        import os, signal, sys
        os.environ["DETACHVIZ_LEAK"] = "1"
        os.umask(0o777)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        sys.setrecursionlimit(123)
        """,
    )
    before = (signal.getsignal(signal.SIGINT), sys.getrecursionlimit())
    assert run_script(changer).exit_code == 0
    reader = write(
        tmp_path / "b.py",
        "import os, sys\nleak = os.environ.get('DETACHVIZ_LEAK')\nmask = os.umask(0o022)\n"
        "os.umask(mask)\nlimit = sys.getrecursionlimit()\n",
    )
    ns = run_script(reader).namespace
    assert ns["leak"] is None and ns["mask"] != 0o777
    assert (signal.getsignal(signal.SIGINT), sys.getrecursionlimit()) == before


@pytest.mark.parametrize(
    "noise",
    [
        "import os\nos.write(1, b'raw fd write')\n",
        "import os\nos.system('echo from a child process')\n",
        "import sys\nsys.stdout.buffer.write(b'binary print')\n",
    ],
    ids=["os.write", "os.system", "stdout.buffer"],
)
def test_nothing_a_script_writes_reaches_stdout_under_dash_o(tmp_path, noise):
    script = write(tmp_path / "s.py", noise + GRAPH)
    result = cli_process("render", str(script), "-o", "-", "-f", "dot", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(b"digraph") and result.stdout.rstrip().endswith(b"}")


@pytest.mark.parametrize("memfd", [True, False], ids=["memfd", "temp-file"])
def test_a_quiet_run_keeps_what_reached_its_stdout_descriptor(tmp_path, monkeypatch, memfd):
    from detachviz.runner import run_script

    if not memfd:
        monkeypatch.delattr(os, "memfd_create", raising=False)
    elif not hasattr(os, "memfd_create"):
        pytest.skip("this system has no memfd_create")
    else:  # the memfd path imports no tempfile (a .pth file may have loaded it already)
        monkeypatch.setitem(sys.modules, "tempfile", None)
    script = write(tmp_path / "s.py", "import os\nprint('printed')\nos.write(1, b'raw\\n')\n")
    assert run_script(script, quiet=True).stdout == "printed\nraw\n"


def test_run_collects_the_scripts_cycles_at_exit_as_python_does(tmp_path):
    # render and grad skip the cyclic collector's exit passes (cli._guarded); run must not
    script = write(
        tmp_path / "s.py",
        """
        class Loud:
            def __del__(self):
                print("finalized", self.name)
        a = Loud(); a.name = "cycle"; a.me = a
        b = Loud(); b.name = "plain"
        """,
    )
    python = subprocess.run([sys.executable, str(script)], capture_output=True, check=True)
    ours = cli_process("run", str(script), cwd=tmp_path)
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == python.stdout == b"finalized cycle\nfinalized plain\n"


@pytest.mark.parametrize("dangling", [False, True], ids=["to-a-file", "dangling"])
def test_an_output_symlink_stays_a_symlink(tmp_path, dangling):
    script = write(tmp_path / "s.py", GRAPH)
    real = tmp_path / "build" / "g.svg"
    real.parent.mkdir()
    if not dangling:
        real.write_bytes(b"old")
    link = tmp_path / "g.svg"
    link.symlink_to(real)
    assert invoke("render", str(script), "-o", str(link)).exit_code == 0
    assert link.is_symlink() and real.read_bytes().startswith(b"<?xml")
    assert temps(tmp_path) == temps(real.parent) == []


def test_dash_o_onto_a_closed_stdout_is_one_failure_line(tmp_path):
    script = write(tmp_path / "s.py", GRAPH)
    result = subprocess.run(
        [sys.executable, "-m", "detachviz", "render", str(script), "-o", "-", "-f", "dot"],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: os.close(1),
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr.decode().strip() == "error: cannot write to stdout: it is closed"


def test_a_reader_leaving_early_is_not_an_internal_error(tmp_path):
    lines = [f"x{i} = torch.ones(2, requires_grad=True)" for i in range(2000)]
    total = "y = sum(v.sum() for k, v in list(globals().items()) if k[0] == 'x')\n"
    script = write(tmp_path / "s.py", "\n".join(lines) + "\n" + total)  # a 100 kB model
    render = subprocess.Popen(
        [sys.executable, "-m", "detachviz", "render", str(script), "-o", "-", "-f", "json"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert render.stdout is not None
    render.stdout.close()  # like `| head -c 10` having exited already
    _, err = render.communicate(timeout=120)
    assert render.returncode == 1
    assert err.decode().strip().endswith("error: cannot write to stdout: Broken pipe")
    assert b"internal error" not in err and b"Traceback" not in err and b"Exception" not in err


def test_status_lines_escape_control_characters_in_names_and_messages(tmp_path):
    evil = tmp_path / "s\x1b]0;pwned\x07.py"
    write(evil, GRAPH + "raise ValueError('two\\nlines \\x1b[31mred')\n")
    result = invoke("render", str(evil), "-f", "dot")
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "\x1b" not in result.stderr and "\x07" not in result.stderr
    assert "\\x1b]0;pwned\\x07" in lines[0]


def test_grad_table_escapes_control_characters_in_names(tmp_path):
    script = write(
        tmp_path / "s.py",
        "m = nn.Linear(2, 1)\n"
        "m.register_parameter('evil\\x1b[31m', nn.Parameter(torch.ones(1)))\n"
        "y = (m(torch.ones(2)) * getattr(m, 'evil\\x1b[31m')).sum()\ny.backward()\n",
    )
    result = invoke("grad", str(script))
    assert result.exit_code == 0
    assert "\x1b" not in result.stdout and "m.evil\\x1b[31m" in result.stdout


@pytest.mark.parametrize("target", ["s.py", "./s.py", "sub/../s.py", "pkg"])
def test_a_traceback_names_the_script_as_python_does(tmp_path, target):
    # python 3.9+ names the script by its absolute path in tracebacks (and in __file__).
    code = "def f():\n    return 1 / 0\n\nprint(__file__)\nf()\n"
    write(tmp_path / "s.py", code)
    write(tmp_path / "pkg" / "__main__.py", code)
    (tmp_path / "sub").mkdir()
    python = subprocess.run([sys.executable, target], cwd=tmp_path, capture_output=True)
    ours = cli_process("run", target, cwd=tmp_path)
    assert str(tmp_path) in python.stderr.decode()
    if target == "pkg":  # python's traceback starts with two frames of its own runpy
        python.stderr = re.sub(rb'  File "<frozen runpy>".*\n', b"", python.stderr)
    assert (ours.returncode, ours.stdout, ours.stderr) == (
        python.returncode,
        python.stdout,
        python.stderr,
    )
