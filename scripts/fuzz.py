"""Differential fuzz campaign: N random programs under real PyTorch and detachviz, grouped diffs.

Usage: python scripts/fuzz.py --n 5000 [--seed S] [--show K] [--save DIR]

Shares the program generator and op table with tests/fuzz/test_differential.py (the CI run is a
bounded hypothesis run over the same programs). Needs real torch installed (the oracle).
Each group is tagged with the programs.KNOWN row (open engine difference) it matches, or NEW.
Exit code: 0 when no mismatch is NEW, 1 otherwise.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fuzz"))

import programs as P  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=5000, help="programs to run")
    ap.add_argument("--seed", type=int, default=0, help="program i uses seed (seed, i)")
    ap.add_argument("--show", type=int, default=2, help="minimised reproducers per group")
    ap.add_argument("--max-steps", type=int, default=8)
    ap.add_argument("--save", type=Path, help="write each group's reproducers as runnable .py")
    args = ap.parse_args(argv)

    import torch

    from detachviz import torch as dt

    start = time.perf_counter()
    groups: dict[str, list[tuple[P.Program, P.Mismatch]]] = {}
    for i in range(args.n):
        rng = random.Random(f"{args.seed}:{i}")
        program = P.generate(P.RandomChooser(rng), max_steps=args.max_steps)
        m = P.check(program, torch, dt)
        if m is not None:
            groups.setdefault(m.signature, []).append((program, m))
    elapsed = time.perf_counter() - start

    total = sum(len(v) for v in groups.values())
    print(f"{args.n} programs, {total} mismatches, {len(groups)} kinds, {elapsed:.1f} s")
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    new = 0
    for sig, found in ordered:
        known = P.known_issue(found[0][1])
        new += 0 if known else len(found)
        print(f"  {len(found):5d}  {sig}  ({'known: ' + known if known else 'NEW'})")
    print(f"{new} mismatches of kinds not in programs.KNOWN")
    for sig, found in ordered:
        # minimise the shortest few programs of the group, keeping the same signature
        found = sorted(found, key=lambda pm: len(pm[0].steps))[: args.show]
        for k, (program, _) in enumerate(found):

            def same(p: P.Program, sig: str = sig) -> bool:
                mm = P.check(p, torch, dt)
                return mm is not None and mm.signature == sig

            small = P.minimise(program, same)
            m = P.check(small, torch, dt)
            assert m is not None
            print(f"\n=== {sig} (#{k + 1}) ===")
            print(P.report(small, m))
            if args.save:
                args.save.mkdir(parents=True, exist_ok=True)
                name = re.sub(r"\W+", "_", sig).strip("_")
                (args.save / f"{name}_{k + 1}.py").write_text(P.runnable(small, m))
    return 1 if new else 0


if __name__ == "__main__":
    raise SystemExit(main())
