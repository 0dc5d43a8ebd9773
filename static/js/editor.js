// The GM's map editor: a tool from the toolbar, then a click or a drag on the map.
// Walls and doors are drawn by dragging (snapped to the corners of the cells
// unless "snap" is off), cells are painted by clicking or dragging, areas
// (zones, reveal, hide) by dragging a rectangle. Each edit is one command; the
// server checks it and every screen gets the result. Esc goes back to playing.
// On a hex map (#28) walls and doors snap to hex corners and cells are hexes (grid.js); what is
// sent is in map units, as the server keeps it, what is drawn here in the map's drawing units.
(function () {
  "use strict";
  const NS = "http://www.w3.org/2000/svg";
  const svg = () => document.getElementById("map");
  const frame = () => document.getElementById("map-frame");
  let tool = "";
  let gesture = null;

  const SEGMENT_TOOLS = new Set(["wall", "door"]);
  const CELL_TOOLS = new Set(["block", "terrain", "cover", "erase"]);
  const AREA_TOOLS = new Set(["zone", "reveal", "hide"]);
  const HINTS = {
    wall: t("Drag from corner to corner to draw a wall."),
    door: t("Drag along a wall's gap to draw a door."),
    block: t("Click or drag over squares to block them."),
    terrain: t("Click or drag over squares to make them difficult terrain."),
    cover: t("Click a square to put a cover piece of the chosen material."),
    erase: t("Click a wall, door, cover piece, blocked or difficult square to erase it."),
    zone: t("Drag a rectangle to draw a zone."),
    reveal: t("Drag a rectangle: the players see it."),
    hide: t("Drag a rectangle: it goes back into the fog."),
  };
  // the same on a hex map: whole sentences, in the words of its cells
  const HEX_HINTS = {
    block: t("Click or drag over hexes to block them."),
    terrain: t("Click or drag over hexes to make them difficult terrain."),
    cover: t("Click a hex to put a cover piece of the chosen material."),
    erase: t("Click a wall, door, cover piece, blocked or difficult hex to erase it."),
  };

  function mapPoint(e) {
    const s = svg();
    const pt = s.createSVGPoint();
    pt.x = e.clientX;
    pt.y = e.clientY;
    return pt.matrixTransform(s.getScreenCTM().inverse());
  }
  const size = () => [parseInt(svg().dataset.width, 10), parseInt(svg().dataset.height, 10)];
  const snapOn = () => { const box = document.getElementById("editor-snap"); return !box || box.checked; };
  const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));

  const grid = () => window.tacgrid.of(svg());
  // a point in map units (what the server keeps) drawn in the map's units
  const drawn = (a) => grid().toDraw(a).map((v) => Math.round(v * 1e4) / 1e4);
  function corner(p) {
    const [w, h] = size();
    const g = grid();
    if (g.hex) { // the nearest corner of the board's hex under the pointer (snap off: to the eighth)
      const m = g.toMap([p.x, p.y]);
      const c = g.cellAt(m);
      const on = [clamp(c[0], 0, w - 1), clamp(c[1], 0, h - 1)];
      if (!snapOn()) return m.map((v) => Math.round(v * 8) / 8);
      let best = null, low = Infinity;
      for (const k of g.corners(on)) {
        const d = g.length(m[0] - k[0], m[1] - k[1]);
        if (d < low) { best = k; low = d; }
      }
      return best;
    }
    if (snapOn()) return [clamp(Math.round(p.x), 0, w), clamp(Math.round(p.y), 0, h)];
    return [clamp(Math.round(p.x * 8) / 8, 0, w), clamp(Math.round(p.y * 8) / 8, 0, h)];
  }
  function cellOf(p) {
    const [w, h] = size();
    const g = grid();
    const c = g.hex ? g.cellAt(g.toMap([p.x, p.y])) : [Math.floor(p.x), Math.floor(p.y)];
    return [clamp(c[0], 0, w - 1), clamp(c[1], 0, h - 1)];
  }

  function layer() {
    let g = document.getElementById("layer-editor");
    if (!g) {
      g = document.createElementNS(NS, "g");
      g.id = "layer-editor";
      svg().appendChild(g);
    }
    return g;
  }
  function clearPreview() { const g = document.getElementById("layer-editor"); if (g) g.replaceChildren(); }

  function setTool(name) {
    tool = name || "";
    document.querySelectorAll("#editor [data-tool]").forEach((b) => {
      b.setAttribute("aria-pressed", b.dataset.tool === tool ? "true" : "false");
    });
    const f = frame();
    if (f) {
      f.classList.toggle("editing", !!tool);
      f.dataset.editTool = tool;
    }
    const hint = document.getElementById("editor-hint");
    if (hint) {
      // in the words of the map's cells (_editor_toolbar.html): hexes on a hex map
      const words = (document.getElementById("editor") || { dataset: {} }).dataset;
      const said = (words.cell === "hex" && HEX_HINTS[tool]) || HINTS[tool] || "";
      hint.textContent = said ? t("{hint} Esc: back to play.", { hint: said }) : "";
      hint.hidden = !tool;
    }
    clearPreview();
    gesture = null;
  }

  document.addEventListener("click", (e) => {
    const b = e.target.closest && e.target.closest("#editor [data-tool]");
    if (b) setTool(b.dataset.tool === tool ? "" : b.dataset.tool);
  });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && tool) setTool(""); });
  // a re-drawn toolbar or map keeps the tool in hand (a tool the new toolbar lacks is put down)
  document.addEventListener("tacmap:update", () => {
    if (tool && !document.querySelector(`#editor [data-tool="${tool}"]`)) tool = "";
    setTool(tool);
  });

  // a map the GM is preparing (not the one everyone sees) is edited by its id
  const send = (payload) => {
    if (!window.tacmap) return undefined;
    const s = svg(), here = s && s.dataset.mapId;
    return window.tacmap.command(Object.assign(here && here !== s.dataset.activeMap ? { map_id: here } : {}, payload));
  };

  // --- what is under the pointer, for the eraser -----------------------------
  function distToSegment(p, a, b) {
    const vx = b[0] - a[0], vy = b[1] - a[1];
    const len = vx * vx + vy * vy;
    let t = len ? ((p.x - a[0]) * vx + (p.y - a[1]) * vy) / len : 0;
    t = clamp(t, 0, 1);
    return Math.hypot(p.x - (a[0] + t * vx), p.y - (a[1] + t * vy));
  }
  function nearestSegment(p) {
    let best = null;
    const consider = (a, b, cmd) => {
      const d = distToSegment(p, a, b);
      if (d < 0.3 && (!best || d < best.d)) best = { d: d, cmd: cmd };
    };
    // the walls come a tile to a path (webapp/live/screens/drawing.py, wall_paths): "M ax ay L bx by" a wall in
    // its d, their ids in data-walls in the same order; only the paths whose box holds the point are read
    document.querySelectorAll("#layer-walls path.wall[data-walls]").forEach((path) => {
      const box = path.getBBox();
      if (p.x < box.x - 0.3 || p.x > box.x + box.width + 0.3 || p.y < box.y - 0.3 || p.y > box.y + box.height + 0.3) return;
      const ids = path.dataset.walls.split(" ");
      const n = (path.getAttribute("d").match(/-?[0-9.]+(?:e-?[0-9]+)?/g) || []).map(Number);
      ids.forEach((id, i) => consider([n[4 * i], n[4 * i + 1]], [n[4 * i + 2], n[4 * i + 3]],
        { type: "remove_wall", wall_id: id }));
    });
    document.querySelectorAll("#layer-walls .door[data-door-id] .door-leaf").forEach((l) =>
      consider([parseFloat(l.getAttribute("x1")), parseFloat(l.getAttribute("y1"))],
        [parseFloat(l.getAttribute("x2")), parseFloat(l.getAttribute("y2"))],
        { type: "remove_door", door_id: l.closest(".door").dataset.doorId }));
    return best && best.cmd;
  }
  function eraseAt(p, cell) {
    const seg = nearestSegment(p);
    if (seg) return seg;
    const key = cell[0] + "," + cell[1];
    const cover = document.querySelector(`#layer-walls .cover[data-cell="${key}"]`);
    if (cover) return { type: "remove_cover", cover_id: cover.dataset.coverId };
    if (document.querySelector(`#layer-walls .blocked[data-cell="${key}"]`)) return { type: "unblock_cell", x: cell[0], y: cell[1] };
    if (document.querySelector(`#layer-walls .terrain[data-cell="${key}"]`)) return { type: "set_terrain", x: cell[0], y: cell[1], cost: 1 };
    return null;
  }

  function cellCommand(p, cell) {
    if (tool === "block") return { type: "block_cell", x: cell[0], y: cell[1] };
    if (tool === "terrain") return { type: "set_terrain", x: cell[0], y: cell[1], cost: 2 };
    if (tool === "cover") {
      const m = document.getElementById("editor-material");
      return { type: "add_cover", x: cell[0], y: cell[1], material: m ? m.value : "stone" };
    }
    return eraseAt(p, cell);
  }

  // --- the gestures ------------------------------------------------------------
  // Listening on the document in the capture phase runs before the map's own
  // handlers (token drag, pan, door clicks), which a tool in hand turns off.
  const onMap = (e) => { const f = frame(); return f && f.contains(e.target) && e.target.closest("svg"); };

  document.addEventListener("pointerdown", (e) => {
    if (!tool || e.button > 0 || !onMap(e)) return;
    e.preventDefault();
    e.stopPropagation();
    const p = mapPoint(e);
    frame().setPointerCapture(e.pointerId);
    if (SEGMENT_TOOLS.has(tool)) {
      const a = corner(p);
      const line = document.createElementNS(NS, "line");
      line.setAttribute("class", "editor-line " + tool);
      const [ax, ay] = drawn(a);
      line.setAttribute("x1", ax); line.setAttribute("y1", ay);
      line.setAttribute("x2", ax); line.setAttribute("y2", ay);
      layer().replaceChildren(line);
      gesture = { kind: "segment", pointer: e.pointerId, a: a, b: a, el: line };
    } else if (AREA_TOOLS.has(tool)) {
      const c = cellOf(p);
      const rect = document.createElementNS(NS, grid().hex ? "g" : "rect");
      rect.setAttribute("class", "editor-area " + tool);
      layer().replaceChildren(rect);
      gesture = { kind: "area", pointer: e.pointerId, from: c, to: c, el: rect };
      drawArea();
    } else if (CELL_TOOLS.has(tool)) {
      const c = cellOf(p);
      gesture = { kind: "cells", pointer: e.pointerId, done: new Set() };
      paint(p, c);
    }
  }, true);

  function drawArea() {
    const g = gesture;
    const x = Math.min(g.from[0], g.to[0]), y = Math.min(g.from[1], g.to[1]);
    const w = Math.abs(g.from[0] - g.to[0]) + 1, h = Math.abs(g.from[1] - g.to[1]) + 1;
    g.box = [x, y, w, h];
    const hexes = grid();
    if (hexes.hex) { // the hexes of the box's rows and columns
      const cells = [];
      for (let j = y; j < y + h; j++) {
        for (let i = x; i < x + w; i++) {
          const poly = document.createElementNS(NS, "polygon");
          poly.setAttribute("points", hexes.points([i, j]));
          cells.push(poly);
        }
      }
      g.el.replaceChildren(...cells);
      return;
    }
    g.el.setAttribute("x", x); g.el.setAttribute("y", y);
    g.el.setAttribute("width", w); g.el.setAttribute("height", h);
  }

  function paint(p, cell) {
    const key = cell.join(",");
    if (gesture.done.has(key) && tool !== "erase") return;
    gesture.done.add(key);
    const cmd = cellCommand(p, cell);
    if (!cmd) return;
    if (tool === "erase") gesture.done.add(JSON.stringify(cmd));
    send(cmd);
  }

  document.addEventListener("pointermove", (e) => {
    if (!gesture || e.pointerId !== gesture.pointer) return;
    e.preventDefault();
    e.stopPropagation();
    const p = mapPoint(e);
    if (gesture.kind === "segment") {
      const b = corner(p);
      gesture.b = b;
      const [bx, by] = drawn(b);
      gesture.el.setAttribute("x2", bx);
      gesture.el.setAttribute("y2", by);
    } else if (gesture.kind === "area") {
      gesture.to = cellOf(p);
      drawArea();
    } else if (gesture.kind === "cells" && tool !== "cover") {
      const c = cellOf(p);
      if (tool === "erase") {
        const cmd = eraseAt(p, c);
        if (!cmd || gesture.done.has(JSON.stringify(cmd))) return;
        gesture.done.add(JSON.stringify(cmd));
        send(cmd);
      } else {
        paint(p, c);
      }
    }
  }, true);

  function finish(e, cancelled) {
    if (!gesture || e.pointerId !== gesture.pointer) return;
    e.stopPropagation();
    const g = gesture;
    gesture = null;
    if (cancelled) { clearPreview(); return; }
    if (g.kind === "segment") {
      if (g.a[0] === g.b[0] && g.a[1] === g.b[1]) { clearPreview(); return; }
      const cmd = { type: tool === "door" ? "add_door" : "add_wall", a: g.a, b: g.b };
      Promise.resolve(send(cmd)).then(() => { if (!gesture) clearPreview(); });
    } else if (g.kind === "area") {
      const [x, y, w, h] = g.box;
      let cmd;
      if (tool === "zone") {
        const input = document.getElementById("editor-zone-name");
        const name = (input && input.value.trim()) || (input && input.placeholder) || "Zone";
        cmd = { type: "add_zone", name: name, box: [x, y, w, h] };
        Promise.resolve(send(cmd)).then((ack) => { if (ack && ack.ok && input) input.value = ""; });
      } else {
        send({ type: tool === "reveal" ? "reveal_cells" : "hide_cells", x: x, y: y, w: w, h: h });
      }
      clearPreview();
    }
  }
  document.addEventListener("pointerup", (e) => finish(e, false), true);
  document.addEventListener("pointercancel", (e) => finish(e, true), true);
  // a tool in hand: a click on a door draws or erases, it does not open the door
  document.addEventListener("click", (e) => {
    if (tool && onMap(e)) { e.stopPropagation(); e.preventDefault(); }
  }, true);

  // "New blank map": the hexes' orientation is asked (and sent) only for hexes
  document.addEventListener("change", (e) => {
    const choice = e.target.closest && e.target.closest("[data-grid-choice]");
    if (!choice) return;
    const orientation = choice.form && choice.form.elements.orientation;
    if (orientation) orientation.disabled = choice.value !== "hex";
  });
  document.addEventListener("reset", (e) => {
    const choice = e.target.querySelector && e.target.querySelector("[data-grid-choice]");
    if (choice) setTimeout(() => { choice.form.elements.orientation.disabled = choice.value !== "hex"; });
  });

  setTool("");
})();
