"""The html view's page, without a browser (tests/render/test_html_browser.py runs it): one
self-contained file, its data keyed by the svg's own ids, tooltips' words, groups, escaping,
determinism, and `-f html` through the CLI."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
import render_samples as samples
from click.testing import CliRunner

from detachviz.cli import cli
from detachviz.graph.model import Edge, Graph, Node
from detachviz.render import draw, html
from detachviz.render.dot import drawn_graph


def page_data(page: str) -> dict:
    found = re.search(r'<script type="application/json" class="dv-data">(.*?)</script>', page, re.S)
    assert found is not None
    return json.loads(found.group(1))


def svg_titles(page: str, kind: str) -> list[str]:
    titles = re.findall(rf'<g id="{kind}\d+" class="{kind}">\n<title>(.*?)</title>', page)
    return [t.replace("&#45;", "-").replace("&gt;", ">") for t in titles]


def test_page_is_self_contained() -> None:
    page = html.render_html(samples.all_cuts(), title="cuts")
    assert page.startswith("<!DOCTYPE html>")
    # Nothing to fetch: no src, no stylesheet link, no url(), no @import; the only href is
    # the empty data: favicon (so the browser asks for no /favicon.ico).
    assert re.findall(r"\bsrc=|url\(|@import", page) == []
    assert re.findall(r'href="([^"]*)"', page) == ["data:,"]
    addresses = set(re.findall(r"https?://[^\s\"'<>]+", page))
    assert addresses <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}
    assert page.count("<script>") == 1 and page.count("<style>") == 1
    assert "<?xml" not in page and "<!DOCTYPE svg" not in page


def test_data_is_keyed_by_the_svg_titles() -> None:
    graph = samples.all_cuts()
    page = html.render_html(graph, title="cuts")
    data = page_data(page)
    nodes = [t for t in svg_titles(page, "node") if "~" not in t]  # not the cut labels
    assert nodes == list(data["nodes"]) == [n.id for n in graph.nodes]
    # A cut's label node "tail~head~k" splits its edge: both halves are the edge tail->head
    # (view.js's edgeKey).
    labels = [t.split("~") for t in svg_titles(page, "node") if "~" in t]
    assert len(labels) == sum(1 for e in graph.edges if e.cut) > 0
    keys = set()  # each svg edge as the edge it stands for
    for title in svg_titles(page, "edge"):
        tail, head = title.split("->")
        label = next((t for t in (tail, head) if "~" in t), None)
        keys.add("->".join(label.split("~")[:2]) if label else title)
    assert keys == set(data["edges"])
    assert data["roots"] == graph.roots and data["groups"] == {} and data["collapsedEdges"] is None


def test_tooltips_name_kind_shape_details_and_line_with_its_code() -> None:
    graph = Graph(
        [
            Node("n0", "output", "y", name="y", shape=(3,), line=2),
            Node("n1", "function", "MulBackward0", line=2),
            Node("n2", "leaf", "x", name="x", shape=(3, 4)),
            Node("n3", "untracked", "exp", shape=(3,), line=1),
        ],
        [Edge("n1", "n0"), Edge("n2", "n1"), Edge("n2", "n3"), Edge("n3", "n1", "detach", 1)],
        ["n0"],
    )
    source = ["h = x.exp().detach()", "  y = h * x  "]
    details = {"n2": {"dtype": "torch.float32", "grad": "[1.0, 2.0, 3.0]"}}
    data = html.view_data(graph, title="t", source=source, details=details)
    nodes = data["nodes"]
    assert nodes["n2"]["rows"] == [
        ["kind", "leaf tensor (requires grad)"],
        ["name", "x"],
        ["shape", "(3, 4)"],
        ["dtype", "torch.float32"],
        ["grad", "[1.0, 2.0, 3.0]"],
    ]
    assert nodes["n1"]["rows"] == [
        ["kind", "backward function"],
        ["op", "MulBackward0"],
        ["line", "2: y = h * x"],
    ]
    assert nodes["n3"]["rows"][0] == ["kind", "untracked: no gradient reaches it from the root"]
    assert data["edges"] == {
        "n1->n0": [[["edge", "gradient flows back along it"]]],
        "n2->n1": [[["edge", "gradient flows back along it"]]],
        "n2->n3": [[["edge", "forward only: no gradient flows back along it"]]],
        "n3->n1": [
            [
                ["cut", "detach()"],
                ["edge", "no gradient flows back"],
                ["line", "1: h = x.exp().detach()"],
            ]
        ],
    }


def test_write_edges_and_the_failure_marker_have_tooltips() -> None:
    graph = samples.failure()
    data = html.view_data(graph, title="f", source=None)
    failure = data["nodes"]["failure"]["rows"]
    assert failure[0][0] == "failure" and "script failed here" in failure[0][1]
    write = Graph(
        [Node("n0", "function", "MulBackward0"), Node("n1", "untracked", "add_", shape=(2,))],
        [Edge("n1", "n0", write="inplace", line=4)],
        ["n0"],
    )
    rows = html.view_data(write, title="w")["edges"]["n1->n0"]
    assert rows == [
        [
            ["write", "in-place write to a saved tensor: backward will raise"],
            ["line", "4"],
        ]
    ]


def test_collapsed_groups_map_back_to_their_model_nodes() -> None:
    graph = samples.mul_chain(10)
    drawn = drawn_graph(graph)
    page = html.render_html(graph, title="chain")
    data = page_data(page)
    [(group, members)] = data["groups"].items()
    assert group in members and len(members) == 9
    assert members == [m for m, d in drawn.members.items() if d == group]
    assert data["expandable"] is True
    rows = data["nodes"][group]["rows"]
    assert rows[-1] == ["group", "×9: stands for 9 nodes, click to expand"]
    # The collapsed svg draws fewer boxes than the expanded one kept in the <template>.
    shown, kept = page.split('<template class="dv-expanded">')
    assert len(svg_titles(shown, "node")) == len(drawn.graph.nodes) < len(graph.nodes)
    assert len(svg_titles(kept, "node")) == len(graph.nodes)
    # An arrow drawn once for nine model edges says so.
    repeated = [
        rows
        for entries in data["collapsedEdges"].values()
        for rows in entries
        if ["repeated", "×9"] in rows
    ]
    assert repeated


def test_too_large_to_expand_says_how_to_draw_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(html, "EXPAND_LIMIT", 5)
    page = html.render_html(samples.mul_chain(10), title="chain")
    data = page_data(page)
    assert "<template" not in page and data["expandable"] is False
    [(group, members)] = data["groups"].items()
    assert data["nodes"][group]["rows"][-1][1].endswith(
        "too large to expand here: render with --expand"
    )
    # Only what the one drawing shows: no data for the boxes merged into the group.
    assert set(data["nodes"]) == set(svg_titles(page, "node"))
    assert len(members) == 9 and not set(members[1:]) & set(data["nodes"])
    assert set(data["edges"]) == set(svg_titles(page, "edge"))
    assert data["collapsedEdges"] is None


NASTY = '</script><script>alert(1)</script><!-- & "quotes"'


def test_names_cannot_break_out_of_the_page() -> None:
    graph = Graph([Node("n0", "leaf", NASTY, name=NASTY, shape=(1,))], [], ["n0"])
    page = html.render_html(graph, title=NASTY)
    assert page.count("</script>") == 2  # the data's and the view's own
    assert "<script>alert" not in page
    assert "<title>&lt;/script&gt;&lt;script&gt;alert(1)" in page
    assert page_data(page)["nodes"]["n0"]["name"] == NASTY  # the JSON still says it exactly


def test_same_graph_same_page() -> None:
    graph = samples.rnn(5)
    assert html.render_html(graph, title="rnn") == html.render_html(graph, title="rnn")


def test_fragment_embeds_in_another_page() -> None:
    graph = samples.detach()
    svg = draw(graph, fmt="svg").decode()
    fragment = html.to_html(graph, svg, title="d", page=False)
    assert fragment.startswith('<div class="dv-root">\n<style>')
    assert fragment.endswith("</script>\n</div>\n")
    assert "<html" not in fragment and "<!DOCTYPE" not in fragment and ' id="dv' not in fragment
    whole = html.to_html(graph, svg, title="d")
    assert fragment.replace('class="dv-root"', 'class="dv-root dv-page"') in whole


def test_to_html_only_needs_data() -> None:
    graph = samples.simple()
    svg = draw(graph, fmt="svg").decode()
    page = html.to_html(graph, svg, title="simple", source=["a = 1"])
    assert html.svg_element(svg) in page and page_data(page)["title"] == "simple"


SCRIPT = textwrap.dedent(
    """\
    a = torch.ones(5, requires_grad=True)
    b = a**3
    c = a.detach() ** 6
    i = (b + c).sum()
    i.backward()
    """
)


def test_cli_writes_html_with_the_scripts_names_details_and_code(tmp_path: Path) -> None:
    script = tmp_path / "seed.py"
    script.write_text(SCRIPT)
    runner = CliRunner()
    result = runner.invoke(cli, ["render", str(script), "-f", "html"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    page = (tmp_path / "seed.html").read_text()
    data = page_data(page)
    by_name = {n["name"]: n for n in data["nodes"].values() if n["name"]}
    # c: the untracked pow, named by the script; b names the PowBackward0 that made it
    assert set(by_name) == {"a", "b", "c", "i"}
    leaf = dict(by_name["a"]["rows"])
    assert leaf["dtype"] == "torch.float32" and leaf["grad"] == "[3.0, 3.0, 3.0, 3.0, 3.0]"
    cut = [rows for entries in data["edges"].values() for rows in entries if rows[0][0] == "cut"]
    assert cut == [
        [
            ["cut", "detach()"],
            ["edge", "no gradient flows back"],
            ["line", "3: c = a.detach() ** 6"],
        ]
    ]
    check = runner.invoke(cli, ["render", str(script), "-f", "html", "--check"])
    assert check.exit_code == 0, check.stderr  # deterministic: the page is current
    # The -o suffix picks the format too.
    out = tmp_path / "view.html"
    assert runner.invoke(cli, ["render", str(script), "-o", str(out)]).exit_code == 0
    assert out.read_text() == page


def test_an_elided_chain_says_what_it_stands_for_not_what_its_first_op_is() -> None:
    # loss <- Sum <- 40 ops cycling through five kinds with no period (nothing repeats as a
    # block, so the middle of the chain is elided into one `… N ops …` box) <- x.
    kinds = ["TanhBackward0", "SinBackward0", "SigmoidBackward0", "CosBackward0", "AbsBackward0"]
    labels = [kinds[(i * i + i // 3) % len(kinds)] for i in range(40)]
    nodes = [Node("n0", "output", "loss", shape=()), Node("n1", "function", "SumBackward0")]
    nodes += [Node(f"n{i + 2}", "function", lab, line=7) for i, lab in enumerate(labels)]
    nodes.append(Node("x", "leaf", "x", shape=(2,)))
    edges = [Edge("n1", "n0")] + [
        Edge(f"n{i + 3}" if i < len(labels) - 1 else "x", f"n{i + 2}") for i in range(40)
    ]
    graph = Graph(nodes, edges, ["n0"])
    drawn = drawn_graph(graph)
    [(box, lines)] = drawn.elided.items()
    source = [f"# line {i}" for i in range(1, 7)] + ["y = step(y)"]
    data = page_data(html.render_html(graph, title="chain", source=source))
    members = data["groups"][box]
    inside = [n.label for n in nodes if n.id in members]
    counts = {k: inside.count(k) for k in set(inside)}
    order = sorted(counts, key=lambda k: (-counts[k], k))
    node = data["nodes"][box]
    assert node["label"] == f"… {len(members)} ops …" and node["name"] == ""
    assert node["rows"] == [
        ["kind", "elided chain: ops in a row, drawn as one box"],
        ["ops", f"{len(members)} ops: " + ", ".join(f"{k} ×{counts[k]}" for k in order)],
        ["line", "7: y = step(y)"],
        ["group", "click to expand"],
    ]
    assert lines == (7, 7) and len(members) == drawn.runs[box]


def test_an_elided_tooltip_lists_the_most_frequent_kinds_and_counts_the_rest() -> None:
    chain = [Node(f"n{i}", "function", f"Op{i % 11}Backward0") for i in range(30)]
    rows = html.elided_rows(chain, (3, 9), "click to expand", None)
    ops = rows[1][1]
    assert ops.startswith("30 ops: Op0Backward0 ×3, Op1Backward0 ×3, Op2Backward0 ×3, ")
    assert ops.count("×") == html.ELIDED_KINDS_SHOWN and ops.endswith(", and 3 more kinds")
    assert rows[2] == ["lines", "3–9"]
