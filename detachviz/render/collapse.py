"""Collapsing unrolled loops (long runs of a repeated block of nodes, or many equal parallel
branches) into one block, for images.

`x = x * w` repeated 3,000 times gives a chain of 3,000 `MulBackward0` nodes, each also fed by
`w`; an unrolled RNN gives `MmBackward0 -> AddBackward0 -> TanhBackward0` 3,000 times, each
step with its own `MmBackward0` side branch and arrows from the same weights. Drawn as is,
such a picture is unreadable, and the layout program needs minutes (every weight's arrows
span the whole height). Collapsed, one copy of the repeated block is drawn, each box saying
`×3000`, with one arrow per distinct input labelled `×3000`, and one arrow from the block's
end back to its start for the recurrence. The JSON model is never collapsed.

How runs are found, in O(nodes + edges) (times the largest period tried):
- op nodes (function/untracked boxes without a shape) with exactly one successor op form a
  forest; each node's *main* predecessor is its deepest one, which splits the forest into
  chains (heavy paths) running in forward order;
- every chain node gets a signature: its kind and label (and attrs when drawn), the cut (if
  any) on the link from its main predecessor, the signatures of the side branches hanging
  into it, and what its other inputs are;
- a stretch of a chain whose signatures repeat with period p (p <= MAX_PERIOD) at least
  MIN_REPEATS times is merged block by block, side branches and tensors used only by one
  step with it, onto the first block (union-find; the earliest node names the class).
- >= MIN_REPEATS equal subtrees hanging into one node (parallel branches: a list of
  per-sample results stacked, per-head outputs concatenated) merge the same way.
Cut edges are never dropped: inside a run they become a loop on the merged box.

A long chain of different ops (a random sequence of unary ops, nothing repeating) has
nothing to collapse, yet drawn in full it is unreadable and its layout grows with its
length. After the merges above, every stretch of >= ELIDE_MIN_RUN op boxes that are
unnamed, not kept, with exactly one plain arrow in and one out (no cut, no write, no saved
tensor, no side input, no `×N` arrow: a box of one op repeated along the chain qualifies,
a repeated block or branch does not) is elided: its first and last ELIDE_KEEP boxes stay,
the ones between merge into one box the same way (drawn `… N ops …`; --expand and
--expand-node draw them as they expand any collapsed box). Named ops, cuts, leaves, roots
and saved tensors therefore always stay visible.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from detachviz.graph import vocab
from detachviz.graph.model import Edge, Graph, Node, paused_gc

# Fewer repeats are drawn as they are: two or three equal steps in a row are normal code.
MIN_REPEATS = 4
MIN_RUN = MIN_REPEATS  # a run of one op repeated (period 1) is collapsed from this length
MAX_PERIOD = 8  # longest repeated block looked for, in chain nodes
# A run of this many unrepeated single-input single-output ops is elided; the first and
# last ELIDE_KEEP stay drawn, so at least ELIDE_MIN_RUN - 2 * ELIDE_KEEP ops are one box.
ELIDE_MIN_RUN = 16
ELIDE_KEEP = 2

# Only op nodes repeat in a loop; tensors have their own names and shapes.
CHAIN_KINDS = (vocab.FUNCTION, vocab.UNTRACKED)

EdgeKey = tuple[str, str, "str | None", "int | None"]


@dataclass
class Collapsed:
    """The graph to draw, and how many model nodes/edges each drawn one stands for (>1 only)."""

    graph: Graph
    runs: dict[str, int] = field(default_factory=dict)
    repeats: dict[EdgeKey, int] = field(default_factory=dict)
    # (source, target) of each loop's way back, from a block's end to its start: drawn
    # without pulling on the layout so the block still reads top to bottom.
    loops: set[tuple[str, str]] = field(default_factory=set)
    # Each merged model node's id -> the id of the drawn box standing for it (runs only).
    members: dict[str, str] = field(default_factory=dict)
    # The boxes standing for an elided chain of different ops -> the (first, last) script
    # line of the ops in it (None when none is known); drawn `… N ops …`, not `op ×N`.
    elided: dict[str, tuple[int, int] | None] = field(default_factory=dict)


def edge_key(e: Edge) -> EdgeKey:
    return (e.source, e.target, e.cut or e.write, e.line)


class _Interner:
    """Small ints for nested tuples, so a signature compares in O(1)."""

    def __init__(self) -> None:
        self.ids: dict[tuple, int] = {}

    def __call__(self, value: tuple) -> int:
        return self.ids.setdefault(value, len(self.ids))


def _find(parent: list[int], i: int) -> int:
    root = i
    while parent[root] != root:
        root = parent[root]
    while parent[i] != root:  # path compression
        parent[i], i = root, parent[i]
    return root


def _union(parent: list[int], a: int, b: int) -> None:
    ra, rb = _find(parent, a), _find(parent, b)
    if ra != rb:  # the earliest node in model order represents the class (stable ids)
        parent[max(ra, rb)] = min(ra, rb)


def _period(sig: list[int], i: int, min_repeats: int, max_period: int) -> tuple[int, int]:
    """(p, covered): the smallest period p with which sig repeats >= min_repeats times from
    i on, and how many entries the repetition covers (whole blocks plus a partial one);
    (0, 0) if there is none."""
    for p in range(1, max_period + 1):
        j = i
        while j + p < len(sig) and sig[j] == sig[j + p]:
            j += 1
        covered = j - i + p
        if covered // p >= min_repeats:
            return p, covered
    return 0, 0


def collapse(
    graph: Graph,
    *,
    min_repeats: int = MIN_REPEATS,
    max_period: int = MAX_PERIOD,
    with_attrs: bool = False,
    keep: frozenset[str] = frozenset(),
) -> Collapsed:
    """Merge every run of >= min_repeats equal blocks (see the module docstring); the nodes
    whose ids are in `keep` are never merged (`--expand-node`)."""
    with paused_gc():
        return _collapse(graph, min_repeats, max_period, with_attrs, keep)


def _collapse(
    graph: Graph, min_repeats: int, max_period: int, with_attrs: bool, keep: frozenset[str]
) -> Collapsed:
    nodes = graph.nodes
    count = len(nodes)
    index = {n.id: i for i, n in enumerate(nodes)}

    def op_key(n: Node) -> tuple | None:
        if n.kind not in CHAIN_KINDS or n.shape is not None or n.id in keep:
            return None
        return (n.kind, n.label, tuple(sorted(n.attrs.items())) if with_attrs else ())

    keys = [op_key(n) for n in nodes]
    ends: list[tuple[int | None, int | None, Edge]] = [
        (index.get(e.source), index.get(e.target), e) for e in graph.edges
    ]

    # The forest: nxt[u] is u's only successor among op nodes (-1 if none or many), and
    # link[u] the cut on that edge (a loop that detaches every step is still a loop).
    op_succ = [0] * count
    nxt = [-1] * count
    link: list[tuple[str | None, int | None]] = [(None, None)] * count
    for s, t, e in ends:
        if s is not None and t is not None and keys[s] and keys[t] and s != t:
            op_succ[s] += 1
            nxt[s] = t
            link[s] = (e.cut, e.line)
    for u in range(count):
        if op_succ[u] != 1:
            nxt[u] = -1
    kids: list[list[int]] = [[] for _ in range(count)]  # forest children, in model order
    for u in range(count):
        if nxt[u] >= 0:
            kids[nxt[u]].append(u)
    # Everything else flowing into a node: (source content, cut, line), compared by value.
    others: list[list[tuple]] = [[] for _ in range(count)]
    for s, t, e in ends:
        if t is None or (s is not None and nxt[s] == t):
            continue
        src = nodes[s] if s is not None else None
        what = (src.kind, src.label, src.shape) if src is not None else ("?", e.source, None)
        others[t].append((*what, e.cut, e.line))
    # A tensor used by one op only (a saved tensor, a per-step input) merges with that op.
    uses = [0] * count
    has_input = [False] * count
    for s, t, _ in ends:
        if s is not None:
            uses[s] += 1
        if t is not None:
            has_input[t] = True
    private: list[list[tuple[tuple, int]]] = [[] for _ in range(count)]
    for s, t, e in ends:
        if s is None or t is None or e.cut is not None or keys[s] or not keys[t]:
            continue
        if uses[s] == 1 and not has_input[s]:
            src = nodes[s]
            private[t].append(((src.kind, src.label, repr(src.shape)), s))
    for lst in private:
        lst.sort()

    # Children before parents (the forest has no cycles): depth and subtree signatures.
    order: list[int] = []
    pending = [len(kids[v]) for v in range(count)]
    stack = [v for v in range(count) if keys[v] and pending[v] == 0]
    while stack:
        v = stack.pop()
        order.append(v)
        if nxt[v] >= 0:
            pending[nxt[v]] -= 1
            if pending[nxt[v]] == 0:
                stack.append(nxt[v])
    intern = _Interner()
    depth = [0] * count
    main = [-1] * count  # the deepest child: the chain continues through it
    subtree = [0] * count  # signature of v with everything hanging into it
    local = [0] * count  # signature of v with its side branches, main child excluded
    for v in order:
        for c in kids[v]:
            if main[v] < 0 or depth[c] > depth[main[v]]:
                main[v] = c
        depth[v] = 1 + (depth[main[v]] if main[v] >= 0 else 0)
        into = others[v]
        extra = tuple(into) if len(into) < 2 else tuple(sorted(into, key=repr))
        side = tuple(sorted(subtree[c] for c in kids[v] if c != main[v])) if kids[v] else ()
        via = link[main[v]] if main[v] >= 0 else (None, None)
        local[v] = intern((keys[v], side, extra, via))
        inner = subtree[main[v]] if main[v] >= 0 else -1
        subtree[v] = intern((local[v], inner, link[v]))

    parent = list(range(count))
    loop_ends: list[tuple[int, int]] = []
    sizes: dict[int, int] = {}  # node index -> how many model nodes it stands for

    def by_sig(c: int) -> tuple[int, int]:
        return (subtree[c], c)

    def merge_pair(x: int, y: int) -> None:
        _union(parent, x, y)
        for (what_x, px), (what_y, py) in zip(private[x], private[y]):
            if what_x == what_y:
                _union(parent, px, py)

    def merge_branch(a: int, b: int) -> None:
        """Merge b's subtree onto a's, node by node (their signatures are equal)."""
        pairs = [(a, b)]
        while pairs:
            x, y = pairs.pop()
            merge_pair(x, y)
            xs = sorted(kids[x], key=by_sig)
            ys = sorted(kids[y], key=by_sig)
            pairs.extend(zip(xs, ys))

    for top in range(count):
        if not keys[top] or (nxt[top] >= 0 and main[nxt[top]] == top):
            continue  # not the top of a chain
        chain = [top]
        while main[chain[-1]] >= 0:
            chain.append(main[chain[-1]])
        chain.reverse()  # forward order: the loop's first step first
        sig = [local[v] for v in chain]
        i = 0
        while i < len(chain):
            p, covered = _period(sig, i, min_repeats, max_period)
            if not p:
                i += 1
                continue
            reps = covered // p
            # NOTE: a partial block left over goes first: a loop's odd step is its first
            # one (fed by the initial values), so the run starts after it.
            i += covered - reps * p
            for k in range(1, reps):
                for pos in range(p):
                    a, b = chain[i + pos], chain[i + k * p + pos]
                    merge_pair(a, b)
                    sides_a = sorted((c for c in kids[a] if c != main[a]), key=by_sig)
                    sides_b = sorted((c for c in kids[b] if c != main[b]), key=by_sig)
                    for x, y in zip(sides_a, sides_b):
                        merge_branch(x, y)
            if p > 1:
                loop_ends.append((chain[i + p - 1], chain[i]))
            i += reps * p

    # Parallel branches: >= min_repeats equal subtrees hanging into the same node (a loop
    # over samples or heads whose results are stacked or summed) merge into one, as runs do.
    for v in order:
        if len(kids[v]) < min_repeats:
            continue
        groups: dict[int, list[int]] = {}
        for c in kids[v]:
            groups.setdefault(subtree[c], []).append(c)
        for same in groups.values():
            if len(same) >= min_repeats:
                for other in same[1:]:
                    merge_branch(same[0], other)

    reps_of = [_find(parent, i) for i in range(count)]
    for i in range(count):
        sizes[reps_of[i]] = sizes.get(reps_of[i], 0) + 1
    elided = _elide(graph, keys, ends, reps_of, parent)
    if elided:
        reps_of = [_find(parent, i) for i in range(count)]
        sizes = {}
        for i in range(count):
            sizes[reps_of[i]] = sizes.get(reps_of[i], 0) + 1
    runs = {nodes[r].id: c for r, c in sizes.items() if c > 1}
    if not runs:
        return Collapsed(graph)

    counts: dict[EdgeKey, int] = {}
    merged: dict[EdgeKey, Edge] = {}
    for s, t, e in ends:
        rs = reps_of[s] if s is not None else s
        rt = reps_of[t] if t is not None else t
        if rs == s and rt == t:  # neither end merged: the edge as it is
            moved = e
        else:
            if rs == rt and e.cut is None:
                continue  # inside a merged class; a cut inside one stays, as a loop on it
            source = nodes[rs].id if rs is not None else e.source
            target = nodes[rt].id if rt is not None else e.target
            moved = Edge(source, target, e.cut, e.line, e.write)
        key = (moved.source, moved.target, moved.cut or moved.write, moved.line)
        if key in merged:
            counts[key] += 1
        else:
            merged[key] = moved
            counts[key] = 1
    roots = []
    for r in graph.roots:
        at = index.get(r)
        roots.append(nodes[reps_of[at]].id if at is not None else r)
    out = Graph(
        [n for i, n in enumerate(nodes) if reps_of[i] == i],
        list(merged.values()),
        list(dict.fromkeys(roots)),
        graph.error,
    )
    loops = {(nodes[reps_of[a]].id, nodes[reps_of[b]].id) for a, b in loop_ends}
    members = {n.id: nodes[reps_of[i]].id for i, n in enumerate(nodes) if sizes[reps_of[i]] > 1}
    lines: dict[int, tuple[int, int]] = {}
    in_box = set(elided)
    for i in range(count):
        line = nodes[i].line
        if line is not None and reps_of[i] in in_box:
            lo, hi = lines.get(reps_of[i], (line, line))
            lines[reps_of[i]] = (min(lo, line), max(hi, line))
    boxes = {nodes[r].id: lines.get(r) for r in elided}
    repeats = {k: c for k, c in counts.items() if c > 1}
    return Collapsed(out, runs, repeats, loops, members, boxes)


def _elide(
    graph: Graph,
    keys: list[tuple | None],
    ends: list[tuple[int | None, int | None, Edge]],
    reps_of: list[int],
    parent: list[int],
) -> list[int]:
    """Merge the middle of every long run of plain single ops (see the module docstring)
    in `parent`; the representatives of the elided boxes, in model order."""
    nodes = graph.nodes
    count = len(nodes)
    ins = [0] * count
    outs = [0] * count
    pred = [-1] * count
    succ = [-1] * count
    plain = [True] * count
    for s, t, e in ends:
        rs = reps_of[s] if s is not None else -1
        rt = reps_of[t] if t is not None else -1
        if rs == rt >= 0 and e.cut is None:
            continue  # inside a merged class: not drawn
        flowing = e.cut is None and e.write is None
        if rt >= 0:
            ins[rt] += 1
            pred[rt] = rs
            plain[rt] = plain[rt] and flowing
        if rs >= 0:
            outs[rs] += 1
            succ[rs] = rt
            plain[rs] = plain[rs] and flowing
    fixed = set(graph.roots)
    if graph.error is not None and isinstance(graph.error.get("node"), str):
        fixed.add(str(graph.error["node"]))
    ok = [
        keys[i] is not None
        and reps_of[i] == i
        and ins[i] == 1
        and outs[i] == 1
        and plain[i]
        and nodes[i].name is None
        and nodes[i].id not in fixed
        for i in range(count)
    ]

    def continues(a: int, b: int) -> bool:  # a and b (a's successor) are in one run
        return a >= 0 and b >= 0 and ok[a] and ok[b] and nodes[b].kind == nodes[a].kind

    elided = []
    for head in range(count):
        if not ok[head] or continues(pred[head], head):
            continue
        run = [head]
        while continues(run[-1], succ[run[-1]]) and len(run) <= count:
            run.append(succ[run[-1]])
        if len(run) < ELIDE_MIN_RUN:
            continue
        middle = run[ELIDE_KEEP : len(run) - ELIDE_KEEP]
        for v in middle[1:]:
            _union(parent, middle[0], v)
        elided.append(_find(parent, middle[0]))
    return sorted(elided)
