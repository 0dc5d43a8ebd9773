// The map under the pointer: drag tokens (mouse and touch), zoom and pan,
// and the GM's door clicks. Every change is a command the server may refuse.
(function () {
  "use strict";
  const frame = document.getElementById("map-frame");
  if (!frame) return;
  const svg = () => document.getElementById("map");
  const width = () => parseInt(svg().dataset.width, 10);
  const height = () => parseInt(svg().dataset.height, 10);
  const PREVIEW_MS = 60;

  function pointToCell(evt) {
    const s = svg();
    const pt = s.createSVGPoint();
    pt.x = evt.clientX;
    pt.y = evt.clientY;
    const p = pt.matrixTransform(s.getScreenCTM().inverse());
    return [Math.floor(p.x), Math.floor(p.y)];
  }
  const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));
  const tokenEl = (id) => document.getElementById("token-" + id);
  function place(el, x, y) { if (el) el.setAttribute("transform", `translate(${x} ${y})`); }

  // --- dragging a token ------------------------------------------------------
  let drag = null;

  frame.addEventListener("pointerdown", (e) => {
    const tok = e.target.closest && e.target.closest(".token.movable");
    if (!tok || !window.tacmap) return;
    e.preventDefault();
    e.stopPropagation();
    const x = parseInt(tok.dataset.x, 10), y = parseInt(tok.dataset.y, 10);
    drag = { id: tok.dataset.tokenId, pointer: e.pointerId, from: [x, y], cell: [x, y], sent: 0 };
    frame.setPointerCapture(e.pointerId);
    tok.classList.add("dragging");
  }, true);

  frame.addEventListener("pointermove", (e) => {
    if (!drag || e.pointerId !== drag.pointer) return;
    e.preventDefault();
    const [cx, cy] = pointToCell(e);
    const cell = [clamp(cx, 0, width() - 1), clamp(cy, 0, height() - 1)];
    if (cell[0] === drag.cell[0] && cell[1] === drag.cell[1]) return;
    drag.cell = cell;
    place(tokenEl(drag.id), cell[0], cell[1]);
    const now = Date.now();
    if (now - drag.sent > PREVIEW_MS) {
      drag.sent = now;
      window.tacmap.preview({ token_id: drag.id, x: cell[0], y: cell[1] });
    }
  });

  function endDrag(e, cancelled) {
    if (!drag || e.pointerId !== drag.pointer) return;
    const d = drag;
    drag = null;
    const el = tokenEl(d.id);
    if (el) el.classList.remove("dragging");
    window.tacmap.preview({ token_id: d.id, x: d.cell[0], y: d.cell[1], done: true });
    const snapBack = () => {
      const cur = tokenEl(d.id);
      if (cur) place(cur, parseInt(cur.dataset.x, 10), parseInt(cur.dataset.y, 10));
    };
    if (cancelled || (d.cell[0] === d.from[0] && d.cell[1] === d.from[1])) { snapBack(); return; }
    window.tacmap.command({ type: "move_token", token_id: d.id, x: d.cell[0], y: d.cell[1] })
      .then((ack) => { if (!ack.ok) snapBack(); });
  }
  frame.addEventListener("pointerup", (e) => endDrag(e, false));
  frame.addEventListener("pointercancel", (e) => endDrag(e, true));

  // --- where others are dragging -------------------------------------------
  const ghosts = new Map();
  document.addEventListener("tacmap:preview", (ev) => {
    const msg = ev.detail;
    const layer = document.getElementById("layer-preview");
    let g = ghosts.get(msg.token_id);
    if (msg.done) { if (g) g.remove(); ghosts.delete(msg.token_id); return; }
    if (!g || !g.isConnected) {
      g = document.createElementNS("http://www.w3.org/2000/svg", "g");
      g.setAttribute("class", "ghost");
      g.dataset.for = msg.token_id;
      const c = document.createElementNS("http://www.w3.org/2000/svg", "circle");
      c.setAttribute("cx", "0.5"); c.setAttribute("cy", "0.5"); c.setAttribute("r", "0.42");
      g.appendChild(c);
      layer.appendChild(g);
      ghosts.set(msg.token_id, g);
    }
    place(g, msg.x, msg.y);
    clearTimeout(g.timer);
    g.timer = setTimeout(() => { g.remove(); ghosts.delete(msg.token_id); }, 4000);
  });
  document.addEventListener("tacmap:update", () => {
    // a swapped layer drops ghosts of tokens whose moves have landed
    ghosts.forEach((g, id) => { if (!g.isConnected) ghosts.delete(id); });
  });

  // --- the GM opens and closes doors -----------------------------------------
  frame.addEventListener("click", (e) => {
    const hit = e.target.closest && e.target.closest(".door-hit");
    if (!hit || !window.tacmap) return;
    const door = hit.closest(".door");
    window.tacmap.command({ type: "set_door", door_id: door.dataset.doorId,
                            closed: door.dataset.closed !== "true" });
  });

  // --- zoom (buttons, wheel with ctrl, pinch) and pan ------------------------
  let zoom = 1;
  function applyZoom(z, focus) {
    const before = zoom;
    zoom = clamp(z, 0.5, 5);
    const s = svg();
    s.style.width = (zoom * 100) + "%";
    if (focus) { // keep the point under the fingers where it is
      const k = zoom / before;
      frame.scrollLeft = (frame.scrollLeft + focus[0]) * k - focus[0];
      frame.scrollTop = (frame.scrollTop + focus[1]) * k - focus[1];
    }
    frame.dataset.zoom = zoom.toFixed(2);
  }
  // On a phone the whole map is too small to touch: start with squares of
  // at least MIN_CELL pixels and let the fingers pan.
  const MIN_CELL = 30;
  function readableZoom() {
    if (document.body.classList.contains("screen-view")) return 1;
    const cell = frame.clientWidth / (width() + 1);
    return cell >= MIN_CELL ? 1 : MIN_CELL / cell;
  }
  document.querySelectorAll("[data-zoom]").forEach((b) => b.addEventListener("click", () => {
    const what = b.dataset.zoom;
    applyZoom(what === "in" ? zoom * 1.25 : what === "out" ? zoom / 1.25 : 1);
  }));
  applyZoom(readableZoom());
  frame.addEventListener("wheel", (e) => {
    if (!e.ctrlKey) return;
    e.preventDefault();
    const r = frame.getBoundingClientRect();
    applyZoom(zoom * (e.deltaY < 0 ? 1.1 : 1 / 1.1), [e.clientX - r.left, e.clientY - r.top]);
  }, { passive: false });

  const touches = new Map();
  let pinch = null;
  frame.addEventListener("pointerdown", (e) => {
    if (drag || e.pointerType === "mouse") return;
    touches.set(e.pointerId, [e.clientX, e.clientY]);
    if (touches.size === 2) {
      const [a, b] = [...touches.values()];
      pinch = { dist: Math.hypot(a[0] - b[0], a[1] - b[1]), zoom: zoom };
    }
  });
  frame.addEventListener("pointermove", (e) => {
    if (drag || !touches.has(e.pointerId)) return;
    const prev = touches.get(e.pointerId);
    touches.set(e.pointerId, [e.clientX, e.clientY]);
    if (touches.size === 2 && pinch) {
      const [a, b] = [...touches.values()];
      const r = frame.getBoundingClientRect();
      const mid = [(a[0] + b[0]) / 2 - r.left, (a[1] + b[1]) / 2 - r.top];
      applyZoom(pinch.zoom * Math.hypot(a[0] - b[0], a[1] - b[1]) / pinch.dist, mid);
    } else if (touches.size === 1) {
      frame.scrollLeft -= e.clientX - prev[0];
      frame.scrollTop -= e.clientY - prev[1];
    }
  });
  const lift = (e) => { touches.delete(e.pointerId); if (touches.size < 2) pinch = null; };
  frame.addEventListener("pointerup", lift);
  frame.addEventListener("pointercancel", lift);
})();
