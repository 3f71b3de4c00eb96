// detachviz html view: pan/zoom, tooltips, path highlighting, search, expandable groups.
// Plain ES2017, no libraries, no network: the page must work from file:// offline.
(function () {
  "use strict";
  // Everything is looked up inside this drawing's own root, so that several drawings can
  // share one page (a notebook's outputs) without their ids colliding.
  var root = document.currentScript.parentElement;
  function part(name) {
    return root.querySelector(":scope > .dv-" + name + ", :scope > .dv-bar > .dv-" + name);
  }
  var data = JSON.parse(part("data").textContent);
  var view = part("view");
  var tip = part("tip");
  var search = part("search");
  var found = part("found");
  var collapseButton = part("collapse");
  var template = part("expanded");
  var collapsedSvg = view.querySelector("svg");

  // State of the mounted drawing.
  var svg = null;
  var box = null; // viewBox {x, y, w, h}
  var home = null; // the whole drawing's viewBox
  var expanded = false;
  var byId = {}; // drawn id -> <g class="node">
  var edgesFrom = {}; // drawn id -> [<g class="edge">]
  var edgesTo = {};
  var matches = [];
  var matchAt = -1;

  function titleOf(g) {
    var t = g.querySelector(":scope > title");
    return t ? t.textContent : "";
  }

  // A cut's or write's label is a node splitting its edge in two (render/dot.py), its id
  // "tail~head~k" (theme.LABEL_ID_SEP): both halves stand for the one edge "tail->head".
  function edgeKey(title) {
    var ends = title.split("->");
    for (var i = 0; i < ends.length; i++) {
      var parts = ends[i].split("~");
      if (parts.length === 3) return parts[0] + "->" + parts[1];
    }
    return title;
  }

  // Read the ids graphviz wrote in each group's <title>, then drop the <title> so the
  // browser's own tooltip does not cover ours.
  function index(root) {
    byId = {};
    edgesFrom = {};
    edgesTo = {};
    root.querySelectorAll("g.node").forEach(function (g) {
      var id = g.dataset.id || titleOf(g);
      g.dataset.id = id;
      if (edgeKey(id) !== id) {
        g.dataset.key = edgeKey(id); // a cut's or write's label: its edge's tooltip
        g.classList.add("dv-label");
      }
      byId[id] = g;
      var info = data.nodes[id];
      if (info) {
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        g.setAttribute("aria-label", (info.name || info.label || id) + ", " + info.kind);
      }
      if (!expanded && data.groups[id]) g.classList.add("dv-group");
    });
    root.querySelectorAll("g.edge").forEach(function (g) {
      var title = titleOf(g);
      var key = g.dataset.key || edgeKey(title);
      g.dataset.key = key;
      if (title && key !== title) { // one half of a labelled edge: which label it ends at
        g.dataset.label = title.split("->").filter(function (end) {
          return end.split("~").length === 3;
        })[0];
      }
      var ends = key.split("->");
      g.dataset.source = ends[0];
      g.dataset.target = ends[1];
      // A thin dashed arrow is hard to point at: give it a wide, invisible twin.
      var path = g.querySelector(":scope > path:not(.dv-hit)");
      if (path && !g.querySelector(":scope > path.dv-hit")) {
        var hit = path.cloneNode(false);
        hit.setAttribute("class", "dv-hit");
        hit.removeAttribute("stroke-dasharray");
        g.insertBefore(hit, path);
      }
      (edgesFrom[ends[0]] = edgesFrom[ends[0]] || []).push(g);
      (edgesTo[ends[1]] = edgesTo[ends[1]] || []).push(g);
    });
    root.querySelectorAll("g.node > title, g.edge > title, g.graph > title").forEach(function (t) {
      t.remove();
    });
  }

  function mount(newSvg) {
    if (svg) svg.remove();
    svg = newSvg;
    view.appendChild(svg);
    var vb = svg.viewBox.baseVal;
    home = { x: vb.x, y: vb.y, w: vb.width, h: vb.height };
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    index(svg);
    clearMarks();
    fit();
  }

  function apply() {
    svg.setAttribute("viewBox", [box.x, box.y, box.w, box.h].join(" "));
  }

  function fit() {
    box = { x: home.x, y: home.y, w: home.w, h: home.h };
    apply();
  }

  // Viewport pixels per drawing unit (the svg keeps its aspect ratio: "meet").
  function scale() {
    var r = view.getBoundingClientRect();
    return Math.min(r.width / box.w, r.height / box.h) || 1;
  }

  // A client point in drawing units.
  function toDrawing(cx, cy) {
    var r = view.getBoundingClientRect();
    var s = scale();
    var ox = (r.width - box.w * s) / 2;
    var oy = (r.height - box.h * s) / 2;
    return { x: box.x + (cx - r.left - ox) / s, y: box.y + (cy - r.top - oy) / s };
  }

  function zoom(factor, cx, cy) {
    var r = view.getBoundingClientRect();
    if (cx === undefined) {
      cx = r.left + r.width / 2;
      cy = r.top + r.height / 2;
    }
    var p = toDrawing(cx, cy);
    var w = box.w * factor;
    var limit = Math.max(home.w, home.h) * 20;
    if (w > limit || w < 1) return;
    box = { x: p.x - (p.x - box.x) * factor, y: p.y - (p.y - box.y) * factor, w: w, h: box.h * factor };
    apply();
  }

  function pan(dx, dy) {
    var s = scale();
    box.x -= dx / s;
    box.y -= dy / s;
    apply();
  }

  // Show the drawing-space rectangle r, with a margin, zoomed in no further than 1:1.
  function show(r) {
    var pad = 40;
    var w = Math.max(r.width + 2 * pad, 200);
    var h = Math.max(r.height + 2 * pad, 150);
    var vr = view.getBoundingClientRect();
    var aspect = vr.width / Math.max(vr.height, 1) || 1;
    if (w / h < aspect) w = h * aspect;
    else h = w / aspect;
    box = { x: r.x + r.width / 2 - w / 2, y: r.y + r.height / 2 - h / 2, w: w, h: h };
    apply();
  }

  // getBBox is in the group's user space: add the graph group's translate.
  function boundsOf(groups) {
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    groups.forEach(function (g) {
      var b = g.getBBox();
      var m = g.getCTM();
      var root = svg.getCTM();
      if (m && root) {
        var rel = root.inverse().multiply(m);
        var px = rel.e + b.x * rel.a, py = rel.f + b.y * rel.d;
        x0 = Math.min(x0, px); y0 = Math.min(y0, py);
        x1 = Math.max(x1, px + b.width * rel.a); y1 = Math.max(y1, py + b.height * rel.d);
      }
    });
    if (x0 === Infinity) return null;
    return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
  }

  // Tooltip ---------------------------------------------------------------------------
  function rowsFor(g) {
    if (g.classList.contains("node") && !g.dataset.key) {
      var info = data.nodes[g.dataset.id];
      return info ? [info.rows] : [];
    }
    var table = expanded || !data.collapsedEdges ? data.edges : data.collapsedEdges;
    return table[g.dataset.key] || [];
  }

  function showTip(g, cx, cy) {
    var blocks = rowsFor(g);
    if (!blocks.length) return hideTip();
    var table = document.createElement("table");
    blocks.forEach(function (rows, i) {
      rows.forEach(function (row, j) {
        var tr = document.createElement("tr");
        if (i > 0 && j === 0) tr.className = "dv-tip-sep";
        var th = document.createElement("th");
        th.textContent = row[0];
        var td = document.createElement("td");
        td.textContent = row[1];
        tr.appendChild(th);
        tr.appendChild(td);
        table.appendChild(tr);
      });
    });
    tip.replaceChildren(table);
    tip.hidden = false;
    var w = tip.offsetWidth, h = tip.offsetHeight;
    var x = cx + 14, y = cy + 14;
    if (x + w > window.innerWidth - 4) x = Math.max(4, cx - w - 14);
    if (y + h > window.innerHeight - 4) y = Math.max(4, cy - h - 14);
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }

  function hideTip() {
    tip.hidden = true;
  }

  function target(ev) {
    return ev.target.closest ? ev.target.closest("g.node, g.edge") : null;
  }

  // Highlighting ----------------------------------------------------------------------
  function clearMarks() {
    if (!svg) return;
    svg.classList.remove("dv-dim");
    svg.querySelectorAll(".dv-on, .dv-sel, .dv-match, .dv-member").forEach(function (g) {
      g.classList.remove("dv-on", "dv-sel", "dv-match", "dv-member");
    });
    matches = [];
    matchAt = -1;
    found.textContent = "";
  }

  // Every node on a path from `id` to the root (following arrows) and to the leaves
  // (against them), and the arrows between them. An explicit stack: graphs can be deep.
  function walk(id, edges, next) {
    var seen = {};
    seen[id] = true;
    var stack = [id];
    while (stack.length) {
      var at = stack.pop();
      (edges[at] || []).forEach(function (e) {
        e.classList.add("dv-on");
        if (e.dataset.label && byId[e.dataset.label]) byId[e.dataset.label].classList.add("dv-on");
        var other = e.dataset[next];
        if (!seen[other]) {
          seen[other] = true;
          stack.push(other);
          if (byId[other]) byId[other].classList.add("dv-on");
        }
      });
    }
  }

  function highlightPaths(id) {
    clearMarks();
    var g = byId[id];
    if (!g) return;
    svg.classList.add("dv-dim");
    g.classList.add("dv-on", "dv-sel");
    walk(id, edgesFrom, "target");
    walk(id, edgesTo, "source");
  }

  // Groups ----------------------------------------------------------------------------
  function expand(groupId) {
    if (!template) return;
    expanded = true;
    mount(template.content.querySelector("svg").cloneNode(true));
    collapseButton.hidden = false;
    var members = (data.groups[groupId] || []).map(function (id) { return byId[id]; })
      .filter(Boolean);
    members.forEach(function (g) { g.classList.add("dv-member"); });
    var r = boundsOf(members);
    if (r) show(r);
    if (members.length) members[0].focus({ preventScroll: true });
  }

  function collapseAll() {
    expanded = false;
    mount(collapsedSvg);
    collapseButton.hidden = true;
    view.focus();
  }

  function activate(g) {
    if (!g.classList.contains("node")) return;
    var id = g.dataset.id;
    if (!expanded && data.groups[id] && data.expandable) expand(id);
    else highlightPaths(id);
  }

  // Search ----------------------------------------------------------------------------
  function runSearch() {
    var q = search.value.trim().toLowerCase();
    clearMarks();
    if (!q) return;
    Object.keys(byId).forEach(function (id) {
      var info = data.nodes[id];
      if (!info) return;
      var hay = (info.name + "\n" + info.label).toLowerCase();
      if (hay.indexOf(q) >= 0) {
        byId[id].classList.add("dv-match");
        matches.push(byId[id]);
      }
    });
    found.textContent = matches.length ? matches.length + " found" : "none found";
  }

  function nextMatch(step) {
    if (!matches.length) return;
    matchAt = (matchAt + step + matches.length) % matches.length;
    var r = boundsOf([matches[matchAt]]);
    if (r) show(r);
    found.textContent = matchAt + 1 + " of " + matches.length;
  }

  // Events ----------------------------------------------------------------------------
  var drag = null;
  view.addEventListener("pointerdown", function (ev) {
    if (ev.button !== 0) return;
    drag = { x: ev.clientX, y: ev.clientY, moved: false, id: ev.pointerId };
  });
  view.addEventListener("pointermove", function (ev) {
    if (drag && drag.id === ev.pointerId) {
      var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
      if (drag.moved || Math.abs(dx) + Math.abs(dy) > 3) {
        if (!drag.moved) {
          drag.moved = true;
          view.setPointerCapture(ev.pointerId);
          view.classList.add("dv-dragging");
          hideTip();
        }
        pan(dx, dy);
        drag.x = ev.clientX;
        drag.y = ev.clientY;
      }
      return;
    }
    var g = target(ev);
    if (g) showTip(g, ev.clientX, ev.clientY);
    else hideTip();
  });
  function endDrag(ev) {
    if (!drag || drag.id !== ev.pointerId) return;
    var moved = drag.moved;
    drag = null;
    view.classList.remove("dv-dragging");
    if (moved) {
      view.releasePointerCapture(ev.pointerId);
      ev.preventDefault();
    }
    return moved;
  }
  view.addEventListener("pointerup", function (ev) {
    var moved = endDrag(ev);
    if (moved) return;
    var g = target(ev);
    if (g) activate(g);
    else clearMarks();
  });
  view.addEventListener("pointercancel", endDrag);
  view.addEventListener("mouseover", function (ev) {
    var g = target(ev);
    if (g && !drag) showTip(g, ev.clientX, ev.clientY);
  });
  view.addEventListener("mouseleave", hideTip);
  view.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    zoom(Math.pow(1.0015, ev.deltaY), ev.clientX, ev.clientY);
  }, { passive: false });
  view.addEventListener("focusin", function (ev) {
    var g = target(ev);
    if (!g) return;
    var r = g.getBoundingClientRect();
    showTip(g, r.right, r.bottom);
  });
  view.addEventListener("focusout", hideTip);
  view.addEventListener("keydown", function (ev) {
    var g = target(ev);
    var step = 60;
    var keys = {
      "+": function () { zoom(1 / 1.25); },
      "=": function () { zoom(1 / 1.25); },
      "-": function () { zoom(1.25); },
      "0": fit,
      ArrowLeft: function () { pan(step, 0); },
      ArrowRight: function () { pan(-step, 0); },
      ArrowUp: function () { pan(0, step); },
      ArrowDown: function () { pan(0, -step); },
      Escape: function () { clearMarks(); hideTip(); },
      Enter: function () { if (g) activate(g); },
      " ": function () { if (g) activate(g); },
    };
    if (keys[ev.key]) {
      keys[ev.key]();
      ev.preventDefault();
    }
  });
  root.addEventListener("keydown", function (ev) {
    if (ev.key === "/" && document.activeElement !== search) {
      ev.preventDefault();
      search.focus();
    }
  });
  search.addEventListener("input", runSearch);
  search.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter") {
      ev.preventDefault();
      nextMatch(ev.shiftKey ? -1 : 1);
    } else if (ev.key === "Escape") {
      search.value = "";
      clearMarks();
    }
  });
  part("zoom-in").addEventListener("click", function () { zoom(1 / 1.25); });
  part("zoom-out").addEventListener("click", function () { zoom(1.25); });
  part("fit").addEventListener("click", fit);
  part("clear").addEventListener("click", function () {
    search.value = "";
    clearMarks();
  });
  collapseButton.addEventListener("click", collapseAll);

  collapsedSvg.remove();
  mount(collapsedSvg);
})();
