"""The `-f html` page in a real headless Chromium (Debian's chromium + chromium-driver,
driven by the pip `selenium` client): no console errors, tooltips on hover, a ×N group
that expands in place, path highlighting, search, zoom, and a screenshot that shows the
drawing's colours. Skips (with the reason) where the browser or its driver is missing;
.ci/run installs both, so CI always runs it.

Set DETACHVIZ_HTML_SCREENSHOT=path.png to keep the screenshot (docs/html.md's picture).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from png_pixels import colour_count, decode_png

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver") or (
    "/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None
)
# .ci/run installs both: under CI a missing browser is a failure, not a skip.
pytestmark = pytest.mark.skipif(
    (CHROMIUM is None or CHROMEDRIVER is None) and os.environ.get("CI") != "true",
    reason="needs Debian's chromium and chromium-driver (apt-get install chromium "
    "chromium-driver; .ci/run does)",
)
webdriver = pytest.importorskip("selenium.webdriver", reason="needs pip install selenium")

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

WIDTH, HEIGHT = 1000, 700
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    f"--window-size={WIDTH},{HEIGHT}",
)

# A loop that collapses (h * w six times: `MulBackward0 ×5` after the first step), its
# result detached (the red cut edge), and a leaf that still gets a gradient.
SCRIPT = textwrap.dedent(
    """\
    import torch

    x = torch.ones(2, requires_grad=True)
    w = torch.full((2,), 0.5, requires_grad=True)
    h = x
    for _ in range(6):
        h = h * w
    frozen = h.detach()
    z = frozen * 2 + x
    loss = z.sum()
    loss.backward()
    """
)
MODEL_NODES = 12  # loss, Sum, Add, x, mul, 6 x MulBackward0, w


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("html")
    script = folder / "loop.py"
    script.write_text(SCRIPT)
    out = folder / "loop.html"
    proc = subprocess.run(
        [sys.executable, "-m", "detachviz", "render", str(script), "-f", "html", "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory):
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in CHROMIUM_ARGS:
        options.add_argument(arg)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def loaded(browser, page: Path):
    browser.get(page.as_uri())
    browser.get_log("browser")  # start each test with an empty log
    browser.get(page.as_uri())
    return browser


def nodes(driver) -> list:
    """The drawn boxes (a cut's label is a node of its own, `dv-label`, and not one)."""
    return driver.find_elements(By.CSS_SELECTOR, ".dv-view > svg g.node:not(.dv-label)")


def node_named(driver, name: str):
    return driver.find_element(By.CSS_SELECTOR, f'.dv-view > svg g.node[aria-label^="{name},"]')


def tooltip(driver) -> str:
    tip = driver.find_element(By.CSS_SELECTOR, ".dv-tip")
    assert tip.is_displayed()
    return tip.text


def test_loads_offline_without_console_errors(loaded) -> None:
    logs = loaded.get_log("browser")
    errors = [e for e in logs if e["level"] in ("SEVERE", "WARNING")]
    assert errors == []
    # The script ran (it makes every model node focusable) and fetched nothing.
    assert len(loaded.find_elements(By.CSS_SELECTOR, "g.node[tabindex='0']")) == 8
    assert loaded.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert loaded.title == "loop.py"


def test_hovering_a_leaf_shows_its_details(loaded) -> None:
    ActionChains(loaded).move_to_element(node_named(loaded, "x")).perform()
    text = tooltip(loaded)
    for part in ("leaf tensor (requires grad)", "x", "(2)", "torch.float32", "[1.0, 1.0]"):
        assert part in text
    ActionChains(loaded).move_to_element(node_named(loaded, "loss")).perform()
    text = tooltip(loaded)
    assert "output (a root tensor)" in text
    assert "10: loss = z.sum()" in text


def test_hovering_the_cut_edge_names_the_mechanism_and_line(loaded) -> None:
    cut = loaded.find_element(By.CSS_SELECTOR, '.dv-view > svg g.edge path[stroke="red"]')
    ActionChains(loaded).move_to_element(cut).perform()
    text = tooltip(loaded)
    assert "detach()" in text
    assert "8: frozen = h.detach()" in text
    assert "no gradient flows back" in text


def test_clicking_a_group_expands_it_in_place(loaded) -> None:
    before = len(nodes(loaded))
    group = loaded.find_element(By.CSS_SELECTOR, "g.node.dv-group")
    ActionChains(loaded).move_to_element(group).perform()
    assert "×5: stands for 5 nodes, click to expand" in tooltip(loaded)
    group.click()
    after = len(nodes(loaded))
    assert (before, after) == (8, MODEL_NODES)
    assert len(loaded.find_elements(By.CSS_SELECTOR, "g.node.dv-member")) == 5
    collapse = loaded.find_element(By.CSS_SELECTOR, ".dv-collapse")
    assert collapse.is_displayed()
    collapse.click()
    assert len(nodes(loaded)) == before
    # Mounting the drawing again gives each arrow one wide hit area, not one more.
    hits = loaded.find_elements(By.CSS_SELECTOR, ".dv-view > svg path.dv-hit")
    assert len(hits) == len(loaded.find_elements(By.CSS_SELECTOR, ".dv-view > svg g.edge"))
    assert loaded.get_log("browser") == []


def test_clicking_a_node_highlights_its_paths_to_root_and_leaves(loaded) -> None:
    def lit(what: str) -> list[str]:
        return sorted(
            g.get_attribute("aria-label")
            for g in loaded.find_elements(By.CSS_SELECTOR, f"g.{what}.dv-on[aria-label]")
        )

    node_named(loaded, "w").click()
    # w feeds every step of the loop, whose result reaches loss through the cut; x is on
    # no path from w (it only joins below), so it stays dimmed.
    # (function nodes carry the name of the variable they made: z = AddBackward0, the last
    # h = MulBackward0)
    assert lit("node") == [
        "MulBackward0, untracked",
        "SumBackward0, function",
        "h, untracked",
        "loss, output",
        "mul, untracked",
        "w, untracked",
        "z, function",
    ]
    # 6 arrows and the cut's two halves (its label a node between them), the label lit too
    assert len(loaded.find_elements(By.CSS_SELECTOR, "g.edge.dv-on")) == 8
    assert len(loaded.find_elements(By.CSS_SELECTOR, "g.node.dv-label.dv-on")) == 1
    assert loaded.find_elements(By.CSS_SELECTOR, "svg.dv-dim")
    # From the sum: up to every leaf and tracked node above it, down to loss.
    node_named(loaded, "SumBackward0").click()
    assert len(lit("node")) == 8
    loaded.find_element(By.CSS_SELECTOR, ".dv-view").send_keys(Keys.ESCAPE)
    assert loaded.find_elements(By.CSS_SELECTOR, "g.dv-on") == []


def test_search_finds_names(loaded) -> None:
    box = loaded.find_element(By.CSS_SELECTOR, ".dv-search")
    box.send_keys("loss")
    assert loaded.find_element(By.CSS_SELECTOR, ".dv-found").text == "1 found"
    marked = loaded.find_elements(By.CSS_SELECTOR, "g.node.dv-match")
    assert [g.get_attribute("aria-label") for g in marked] == ["loss, output"]
    box.send_keys(Keys.ENTER)
    assert loaded.find_element(By.CSS_SELECTOR, ".dv-found").text == "1 of 1"


def test_zoom_buttons_and_wheel_change_the_view(loaded) -> None:
    def width() -> float:
        return loaded.execute_script(
            "return document.querySelector('.dv-view > svg').viewBox.baseVal.width"
        )

    start = width()
    loaded.find_element(By.CSS_SELECTOR, ".dv-zoom-in").click()
    assert width() == pytest.approx(start / 1.25)
    loaded.find_element(By.CSS_SELECTOR, ".dv-fit").click()
    assert width() == pytest.approx(start)
    view = loaded.find_element(By.CSS_SELECTOR, ".dv-view")
    ActionChains(loaded).scroll_from_origin(ScrollOrigin.from_element(view), 0, 200).perform()
    assert width() > start


def test_screenshot_shows_the_drawing(loaded) -> None:
    ActionChains(loaded).move_to_element(node_named(loaded, "x")).perform()  # a tooltip too
    png = loaded.get_screenshot_as_png()
    keep = os.environ.get("DETACHVIZ_HTML_SCREENSHOT")
    if keep:
        Path(keep).write_bytes(png)
    width, height, rows = decode_png(png)
    assert (width, height) == (WIDTH, loaded.execute_script("return window.innerHeight"))
    assert width * height > 0
    white = colour_count(rows, lambda r, g, b: r > 245 and g > 245 and b > 245)
    assert 0.5 < white / (width * height) < 0.99  # a drawing on a white page, not blank
    # The cut edge's red, the leaf's light blue (#add8e6) and the output's green (#caff70).
    assert colour_count(rows, lambda r, g, b: r > 200 and g < 60 and b < 60) > 100
    assert colour_count(rows, lambda r, g, b: (r, g, b) == (0xAD, 0xD8, 0xE6)) > 500
    assert colour_count(rows, lambda r, g, b: (r, g, b) == (0xCA, 0xFF, 0x70)) > 500


def test_two_drawings_on_one_page_keep_to_themselves(browser, tmp_path: Path) -> None:
    """As in a notebook's outputs: two embedded views, each with its own data and groups."""
    import render_samples as samples

    from detachviz.render.html import render_html

    chain = render_html(samples.mul_chain(6), title="chain", page=False)
    cuts = render_html(samples.all_cuts(), title="cuts", source=["p = ..."] * 9, page=False)
    host = tmp_path / "host.html"
    host.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">'
        f"<title>host</title></head><body><p>notebook</p>{chain}{cuts}</body></html>",
        encoding="utf-8",
    )
    browser.get(host.as_uri())
    first, second = browser.find_elements(By.CSS_SELECTOR, ".dv-root")

    def count(root) -> int:
        return len(root.find_elements(By.CSS_SELECTOR, ".dv-view > svg g.node:not(.dv-label)"))

    assert (count(first), count(second)) == (5, 8)  # MulBackward0 ×5 is one box
    browser.execute_script("arguments[0].scrollIntoView()", second)
    leaf = second.find_element(By.CSS_SELECTOR, 'g.node[aria-label^="p,"]')
    ActionChains(browser).move_to_element(leaf).perform()
    tip = second.find_element(By.CSS_SELECTOR, ".dv-tip")
    assert tip.is_displayed() and "leaf tensor" in tip.text and "(2)" in tip.text
    assert not first.find_element(By.CSS_SELECTOR, ".dv-tip").is_displayed()
    browser.execute_script("arguments[0].scrollIntoView()", first)
    first.find_element(By.CSS_SELECTOR, "g.node.dv-group").click()
    assert (count(first), count(second)) == (9, 8)
    assert browser.get_log("browser") == []


ELIDED_SCRIPT = textwrap.dedent(
    """\
    import torch
    x = torch.rand(3, requires_grad=True)
    ops = [torch.sin, torch.cos, torch.exp, torch.tanh, torch.sigmoid, torch.atan, torch.abs]
    y = x
    for k in range(30):
        y = ops[(k * k + k // 3) % len(ops)](y)
    loss = y.sum()
    """
)


def test_hovering_an_elided_chain_lists_its_ops(browser, tmp_path: Path) -> None:
    script = tmp_path / "chain.py"
    script.write_text(ELIDED_SCRIPT)
    out = tmp_path / "chain.html"
    proc = subprocess.run(
        [sys.executable, "-m", "detachviz", "render", str(script), "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    browser.get(out.as_uri())
    box = browser.find_element(By.CSS_SELECTOR, '.dv-view > svg g.node[aria-label^="… "]')
    ActionChains(browser).move_to_element(box).perform()
    text = tooltip(browser)
    assert "elided chain: ops in a row, drawn as one box" in text
    assert re.search(r"\d+ ops: \w+Backward0 ×\d+", text), text
    assert "6: y = ops[(k * k + k // 3) % len(ops)](y)" in text
    assert "click to expand" in text
