"""Re-execute the worked notebook(s) in place and write their tagged images, as CI checks
them (tests/test_notebook.py):

    python docs/notebooks/refresh.py

Runs `jupyter nbconvert --to notebook --execute --inplace` without timing metadata, so the
committed outputs change only when what detachviz draws changes. A code cell tagged
`image:NAME` has its drawing copied to docs/notebooks/NAME.svg, for pages that show it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
IMAGES = HERE  # beside the notebook: pages link docs/notebooks/NAME.svg
NOTEBOOKS = sorted(HERE.glob("*.ipynb"))
TAG = "image:"


def execute_command(notebook: Path, output: Path | None = None) -> list[str]:
    """The nbconvert command that executes `notebook` (into `output`, else in place)."""
    cmd = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute"]
    # No timing metadata (outputs stay byte-stable); a generous per-cell limit for busy CI.
    cmd += ["--ExecutePreprocessor.record_timing=False", "--ExecutePreprocessor.timeout=300"]
    cmd += [str(notebook)]
    cmd += ["--output", str(output)] if output is not None else ["--inplace"]
    return cmd


def tagged_images(notebook: Path) -> dict[str, str]:
    """Image file name -> the svg a tagged cell of `notebook` shows."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    images = {}
    for cell in cells:
        for tag in cell.get("metadata", {}).get("tags", []):
            if tag.startswith(TAG):
                svgs = [o["data"]["image/svg+xml"] for o in cell.get("outputs", [])
                        if "image/svg+xml" in o.get("data", {})]  # fmt: skip
                images[f"{tag[len(TAG) :]}.svg"] = "".join(svgs[0])
    return images


def main() -> int:
    for notebook in NOTEBOOKS:
        subprocess.run(execute_command(notebook), check=True, cwd=HERE)
        print(f"executed {notebook.relative_to(HERE.parents[1])}")
        for name, svg in tagged_images(notebook).items():
            (IMAGES / name).write_text(svg, encoding="utf-8")
            print(f"wrote docs/notebooks/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
