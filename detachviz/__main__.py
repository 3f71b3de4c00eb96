"""`python -m detachviz` runs the command line."""

from __future__ import annotations

from detachviz.cli import main

if __name__ == "__main__":
    main()
