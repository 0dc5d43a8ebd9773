// The map under the pointer: drag tokens (mouse and touch), zoom and pan,
// the GM's door clicks, and the tokens' names and badges laid out so none hides another.
// Every change is a command the server may refuse.
(function () {
  "use strict";
  const frame = document.getElementById("map-frame");
  if (!frame) return;
  const NS = "http://www.w3.org/2000/svg";
  const svg = () => document.getElementById("map");
  const width = () => parseInt(svg().dataset.width, 10);
  const height = () => parseInt(svg().dataset.height, 10);
  const role = () => svg().dataset.role;
  const onScreen = document.body.classList.contains("screen-view");

  const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));
  const tokenEl = (id) => document.getElementById("token-" + id);
  const sizeOf = (el) => parseInt(el.dataset.size || "1", 10) || 1;
  const home = (el) => [parseInt(el.dataset.x, 10), parseInt(el.dataset.y, 10)];
  function shownAt(el) {
    const m = /translate\(\s*(-?[\d.]+)[ ,]+(-?[\d.]+)/.exec(el.getAttribute("transform") || "");
    return m ? [parseFloat(m[1]), parseFloat(m[2])] : home(el);
  }
  // a token's place on the map: its cell (x, y); drawn at its box's top-left (on hexes round its hexes' centre)
  const grid = () => (window.tacgrid ? window.tacgrid.of(svg()) : null);
  function place(el, x, y) {
    if (!el) return;
    const g = grid();
    const [bx, by] = g && g.hex ? g.box([x, y], sizeOf(el)) : [x, y];
    el.setAttribute("transform", `translate(${bx} ${by})`);
  }
  // the cell a token is shown on (on squares, the top-left of its box)
  function shownCell(el) {
    const g = grid();
    if (!g || !g.hex) return shownAt(el).map(Math.round);
    const [x, y] = shownAt(el), size = sizeOf(el);
    return g.anchorAt([x + size / 2, y + size / 2], size);
  }
  const connected = () => !!(window.tacmap && window.tacmap.socket && window.tacmap.socket.connected);
  // the touch table: the GM lets the table screen take touches (#screen-touch, templates/_screen_touch.html)
  const screenTouch = () => { const m = document.getElementById("screen-touch"); return !!m && m.dataset.enabled === "true"; };

  function mapPoint(clientX, clientY) {
    const s = svg();
    const pt = s.createSVGPoint();
    pt.x = clientX;
    pt.y = clientY;
    return pt.matrixTransform(s.getScreenCTM().inverse());
  }
  if (window.tacmap) window.tacmap.mapPoint = mapPoint; // the map point under a screen point, for the other scripts

  // --- dragging a token ------------------------------------------------------
  // The GM drags any token, a player their own, the table screen (touch on) any it shows, several at once
  // (one drag per finger, by pointer id). A player may also pick up
  // someone else's: the drop goes to the server, which says no, and the token
  // springs back with the server's reason (feedback instead of a dead finger).
  //
  // A drop is shown at once where it fell, as pending (the `pending` class is set
  // at once; its dimmed look fades in only if the answer is slow: the CSS delays
  // it, so a blink-fast answer never flickers), until the server answers:
  // accepted -> the look goes and the server's update owns the position;
  // refused -> back to where the server has it, with the reason.
  // A pending token may be picked up again: its new drop waits for the answer
  // to the one before (moves of one token go out in order) and then goes out.
  const drags = new Map(); // pointer id -> the drag that pointer holds
  const pending = new Map(); // token id -> {cell, since, n}: the latest drop, until the server answers it
  const inFlight = new Map(); // token id -> the promise of its latest move's answer (moves of a token go in order)
  let drops = 0;
  const PENDING_DELAY_MS = 250, PENDING_FADE_MS = 200; // the pending look's delay and fade (static/css/app.css)

  // where a token rests on this page: its pending drop, or where the server has it
  const resting = (id, el) => (pending.has(id) ? pending.get(id).cell : home(el));

  // One clock for the look however often the token or its name is drawn again: a fresh
  // copy of a pending token (a stale update, a new layout of the names) picks the fade-in
  // up where it was (a negative delay), with no flicker.
  const pendingDelay = (p) => Math.round(p.since + PENDING_DELAY_MS - performance.now()) + "ms";
  function lookPending(el, p) {
    if (el.classList.contains("pending")) return; // its look is on its way already: leave its clock alone
    el.style.setProperty("--pending-delay", pendingDelay(p));
    el.classList.add("pending");
  }
  function unlookPending(el) {
    el.classList.remove("pending");
    el.style.removeProperty("--pending-delay");
  }

  // --- which token a press takes ------------------------------------------------
  // A token is its own squares. A mouse or a pen takes the token whose squares are under it
  // (only a token's square catches the pointer: app.css), an empty square none (the map pans).
  // A finger covers more than a square on a phone: of the tokens the touch area reaches, the one
  // whose centre is nearest the touch (so one's own square still wins over the foe beside it).
  const FINGER_PX = 12; // the touch's radius when the device does not say how big it is
  const pickable = (el) => !el.closest(".prepared-tokens") && !frame.classList.contains("editing")
    && !el.classList.contains("dragging"); // another finger holds it
  function tokenUnder(e) {
    if (e.pointerType !== "touch") {
      const tok = e.target.closest && e.target.closest(".token");
      return tok && pickable(tok) ? tok : null;
    }
    const s = svg();
    const ctm = s && s.getScreenCTM();
    if (!ctm || !ctm.a) return null;
    const p = mapPoint(e.clientX, e.clientY);
    const px = e.width > 1 || e.height > 1 ? Math.max(e.width, e.height) / 2 : FINGER_PX;
    const reach = clamp(px, 4, 40) / ctm.a; // in squares
    let best = null, low = Infinity;
    for (const el of s.querySelectorAll("#layer-tokens .token")) {
      if (!pickable(el)) continue;
      const [x, y] = shownAt(el);
      const size = sizeOf(el);
      // the touch area does not reach its squares
      if (Math.hypot(p.x - clamp(p.x, x, x + size), p.y - clamp(p.y, y, y + size)) > reach) continue;
      // how far its centre is (a big token's: the nearest of its squares' centres)
      const d = Math.hypot(p.x - clamp(p.x, x + 0.5, x + size - 0.5), p.y - clamp(p.y, y + 0.5, y + size - 0.5));
      if (d < low) { low = d; best = el; }
    }
    return best;
  }
  if (window.tacmap) window.tacmap.tokenUnder = tokenUnder; // templates.js: a press on a token picks it up

  frame.addEventListener("pointerdown", (e) => {
    if (e.button > 0 || (role() === "screen" && !screenTouch()) || !window.tacmap) return;
    const tok = tokenUnder(e);
    if (!tok) return;
    e.preventDefault();
    e.stopPropagation();
    const id = tok.dataset.tokenId;
    const [x, y] = shownCell(tok); // where this page shows it: a pending drop, or the server's place
    const size = sizeOf(tok);
    const p = mapPoint(e.clientX, e.clientY);
    // where in a big token it was grabbed, so it moves under the finger as one piece (on hexes: the
    // pointer's offset from the token's drawn centre, in drawing units)
    const g = grid();
    const at = g && g.hex ? shownAt(tok) : null;
    const grab = at ? [p.x - at[0] - size / 2, p.y - at[1] - size / 2]
      : [clamp(Math.floor(p.x) - x, 0, size - 1), clamp(Math.floor(p.y) - y, 0, size - 1)];
    const drag = { id: id, pointer: e.pointerId, from: [x, y], cell: [x, y], grab: grab, size: size,
                   own: tok.classList.contains("movable") || role() === "screen", sent: null, frame: 0 };
    drags.set(e.pointerId, drag);
    frame.setPointerCapture(e.pointerId);
    tok.classList.add("dragging");
    if (drag.own) document.dispatchEvent(new CustomEvent("tacmap:dragstart", { detail: { id: drag.id, from: drag.from } }));
  }, true);

  // Others see the drag as it goes: at most one preview per frame of this screen, and only
  // when the cell changed since the last one sent. The frame after the pointer stops sends
  // the cell it stopped on, so the last cell always goes out (not only with the drop).
  function sendPreview(d) {
    d.frame = 0;
    if (drags.get(d.pointer) !== d) return;
    if (!d.own || !connected()) return;
    if (d.sent && d.sent[0] === d.cell[0] && d.sent[1] === d.cell[1]) return;
    d.sent = d.cell;
    window.tacmap.preview({ token_id: d.id, x: d.cell[0], y: d.cell[1] });
  }

  frame.addEventListener("pointermove", (e) => {
    const drag = drags.get(e.pointerId);
    if (!drag) return;
    e.preventDefault();
    const p = mapPoint(e.clientX, e.clientY);
    const g = grid();
    let cell;
    if (g && g.hex) { // the hex whose centre is nearest the grabbed point; a token never leaves the board
      cell = g.anchorAt([p.x - drag.grab[0], p.y - drag.grab[1]], drag.size);
      if (!g.fits(cell, drag.size, width(), height())) return;
    } else {
      cell = [clamp(Math.floor(p.x) - drag.grab[0], 0, width() - drag.size),
              clamp(Math.floor(p.y) - drag.grab[1], 0, height() - drag.size)];
    }
    if (cell[0] === drag.cell[0] && cell[1] === drag.cell[1]) return;
    drag.cell = cell;
    place(tokenEl(drag.id), cell[0], cell[1]);
    document.dispatchEvent(new CustomEvent("tacmap:dragcell", { detail: { id: drag.id, cell: cell } }));
    queueLayout();
    if (!drag.frame) drag.frame = requestAnimationFrame(() => sendPreview(drag));
  });

  function springBack(id, refused) {
    const el = tokenEl(id);
    if (!el) return;
    const from = shownAt(el);
    const [x0, y0] = resting(id, el);
    place(el, x0, y0);
    const [x, y] = shownAt(el); // where it is drawn (on hexes, not its cell)
    if ((from[0] !== x || from[1] !== y) && el.animate) {
      el.animate([{ transform: `translate(${from[0]}px, ${from[1]}px)` }, { transform: `translate(${x}px, ${y}px)` }],
                 { duration: 260, easing: "cubic-bezier(0.3, 1.5, 0.6, 1)" });
    }
    if (refused) {
      el.classList.add("refused");
      setTimeout(() => { const cur = tokenEl(id); if (cur) cur.classList.remove("refused"); }, 900);
    }
    layoutLabels();
  }

  function sendMove(id, cell, after) {
    // While the server is away the drop waits, pending, in the page's one command path (live.js),
    // which sends it on reconnecting, in order, with its id (done once), with its refusals and offers.
    return window.tacmap.command({ type: "move_token", token_id: id, x: cell[0], y: cell[1] }, after);
  }

  function settle(id, n, ack) {
    const p = pending.get(id);
    if (!p || p.n !== n) return; // a later drop of the same token is on its way: its answer settles it
    pending.delete(id);
    const el = tokenEl(id);
    if (el) unlookPending(el);
    if (!ack.ok) springBack(id, true); // the reason is already on the screen
    else layoutLabels();
    // accepted: the server's update puts the token where it landed (the token stays where
    // it was dropped meanwhile, so an answer that overtakes its update does not jump it back)
  }

  function endDrag(e, cancelled) {
    const d = drags.get(e.pointerId);
    if (!d) return;
    drags.delete(e.pointerId);
    if (d.frame) cancelAnimationFrame(d.frame);
    const el = tokenEl(d.id);
    if (el) el.classList.remove("dragging");
    document.dispatchEvent(new CustomEvent("tacmap:dragend", { detail: { id: d.id } }));
    if (d.own && connected()) window.tacmap.preview({ token_id: d.id, x: d.cell[0], y: d.cell[1], done: true });
    if (cancelled || (d.cell[0] === d.from[0] && d.cell[1] === d.from[1])) { springBack(d.id, false); return; }
    drop(d.id, d.cell);
  }

  // A token put down on `cell` (a drag's drop, an arrow key's step): shown there at once, pending,
  // and sent after the answer to its previous move. The answer's promise.
  function drop(id, cell) {
    const el = tokenEl(id);
    const n = ++drops;
    const was = pending.get(id); // dropped again before its answer: it has been pending all along
    // with the server away no quick answer is coming: the look shows at once
    const p = { cell: cell, n: n,
                since: was ? was.since : performance.now() - (connected() ? 0 : PENDING_DELAY_MS + PENDING_FADE_MS) };
    pending.set(id, p);
    place(el, cell[0], cell[1]);
    if (el) lookPending(el, p);
    layoutLabels();
    const before = inFlight.get(id); // its answer first: the move goes out after it, from where it left the token
    const answer = sendMove(id, cell, before).then((ack) => { settle(id, n, ack); return ack; });
    inFlight.set(id, answer);
    answer.then(() => { if (inFlight.get(id) === answer) inFlight.delete(id); });
    return answer;
  }
  // keys.js: an arrow key moves the focused token from where this page shows it (its pending drop, if any)
  if (window.tacmap) {
    window.tacmap.moveToken = (id, cell) => drop(id, cell);
    window.tacmap.shownAt = (id) => { const el = tokenEl(id); return el ? shownCell(el) : null; };
  }
  frame.addEventListener("pointerup", (e) => endDrag(e, false));
  frame.addEventListener("pointercancel", (e) => endDrag(e, true));

  document.addEventListener("tacmap:update", () => {
    // An update may come between a drop and its answer (someone else's move, or ours
    // landing): a token drawn fresh stays where this page is still holding it.
    pending.forEach((p, id) => {
      const el = tokenEl(id);
      if (!el) { pending.delete(id); return; } // gone from this view (hidden, removed)
      place(el, p.cell[0], p.cell[1]);
      lookPending(el, p);
    });
    drags.forEach((drag) => {
      const el = tokenEl(drag.id);
      if (el) { el.classList.add("dragging"); place(el, drag.cell[0], drag.cell[1]); }
    });
  });

  // --- where others are dragging -------------------------------------------
  // A burst of previews (a slow screen, a busy network) is drawn once per frame:
  // only the newest per token, so a ghost never trails behind its drag.
  const ghosts = new Map();
  const newest = new Map(); // token id -> the latest preview not drawn yet
  let ghostFrame = 0;
  function drawGhost(msg) {
    const layer = document.getElementById("layer-preview");
    if (!layer) return;
    let g = ghosts.get(msg.token_id);
    const tok = tokenEl(msg.token_id);
    const size = tok ? sizeOf(tok) : 1;
    if (!g || !g.isConnected) {
      g = document.createElementNS(NS, "g");
      g.setAttribute("class", "ghost");
      g.dataset.for = msg.token_id;
      g.dataset.size = size;
      const c = document.createElementNS(NS, "circle");
      c.setAttribute("cx", size / 2); c.setAttribute("cy", size / 2); c.setAttribute("r", size / 2 - 0.07);
      g.appendChild(c);
      layer.appendChild(g);
      ghosts.set(msg.token_id, g);
    }
    place(g, msg.x, msg.y);
    clearTimeout(g.timer);
    g.timer = setTimeout(() => { g.remove(); if (ghosts.get(msg.token_id) === g) ghosts.delete(msg.token_id); }, 4000);
  }
  function drawGhosts() {
    ghostFrame = 0;
    newest.forEach(drawGhost);
    newest.clear();
  }
  document.addEventListener("tacmap:preview", (ev) => {
    const msg = ev.detail;
    if (msg.done) {
      newest.delete(msg.token_id);
      const g = ghosts.get(msg.token_id);
      if (g) { clearTimeout(g.timer); g.remove(); }
      ghosts.delete(msg.token_id);
      return;
    }
    newest.set(msg.token_id, msg);
    // a hidden page gets no frames: draw at once there (nothing to pace)
    if (document.hidden) { drawGhosts(); return; }
    if (!ghostFrame) ghostFrame = requestAnimationFrame(drawGhosts);
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
    const onMap = svg().dataset.mapId; // the GM may be preparing another map than the one everyone sees
    window.tacmap.command(Object.assign({ type: "set_door", door_id: door.dataset.doorId,
                                          closed: door.dataset.closed !== "true" },
                                        onMap && onMap !== svg().dataset.activeMap ? { map_id: onMap } : {}));
  });

  // --- names: a pill per token, pushed clear of the other names ---------------
  // Sized in screen pixels, not map units: on the table screen a name is read
  // from three metres away (at least 28 px, more on a small projector).
  const LABEL_AVOID_LIMIT = 150; // past this many tokens names are not pushed apart (too slow to be worth it)
  function labelPx(scale) {
    if (onScreen) return Math.max(28, window.innerHeight * 0.03);
    return clamp(scale * 0.3, 11, 15);
  }
  // A badge pill's height: on the table screen at least 18 px (2% of the screen's height), whatever
  // the size of the map; elsewhere about a third of a square, as the token partial draws them.
  function badgePx(scale) {
    if (onScreen) return Math.max(18, window.innerHeight * 0.02);
    return clamp(scale * 0.3, 11, 14);
  }
  function segmentNearDisc(x1, y1, x2, y2, o) {
    const r = o.size / 2 - 0.07, ox = o.x + o.size / 2, oy = o.y + o.size / 2;
    const dx = x2 - x1, dy = y2 - y1, len2 = dx * dx + dy * dy || 1;
    const k = clamp(((ox - x1) * dx + (oy - y1) * dy) / len2, 0, 1);
    return Math.hypot(x1 + k * dx - ox, y1 + k * dy - oy) < r;
  }
  function segmentInRect(x1, y1, x2, y2, r) {
    for (let k = 0; k <= 12; k++) {
      const x = x1 + (x2 - x1) * k / 12, y = y1 + (y2 - y1) * k / 12;
      if (x > r.x && x < r.x + r.w && y > r.y && y < r.y + r.h) return true;
    }
    return false;
  }
  const hits = (a, b, m) => a.x < b.x + b.w + m && b.x < a.x + a.w + m && a.y < b.y + b.h + m && b.y < a.y + a.h + m;

  // What a token's name and badges are laid out from: its place, size, name, colour, the classes the label
  // copies, its badges' classes and words; a pending token's fade starts at a moment of its own (never equal)
  function labelKey(t) {
    const el = t.el, id = el.dataset.tokenId;
    const badges = [...el.querySelectorAll(".badges > .badge")].map((m) => m.getAttribute("class") + "=" + (m.textContent || "").trim());
    return [id, t.x, t.y, t.size, el.dataset.name, el.dataset.color, el.getAttribute("class"),
      pending.has(id) ? performance.now() : "", ...badges].join("\t");
  }

  function layoutLabels() {
    const s = svg();
    const layer = document.getElementById("layer-labels");
    if (!s || !layer) return;
    const ctm = s.getScreenCTM();
    if (!ctm || !ctm.a) return;
    const scale = ctm.a; // screen pixels per square
    const font = labelPx(scale) / scale;
    const gap = 0.06;
    const box = s.getBoundingClientRect();
    const p0 = mapPoint(box.left, box.top), p1 = mapPoint(box.right, box.bottom);
    const bounds = { x: p0.x, y: p0.y, w: p1.x - p0.x, h: p1.y - p0.y };
    const inside = (r) => r.x >= bounds.x && r.y >= bounds.y && r.x + r.w <= bounds.x + bounds.w && r.y + r.h <= bounds.y + bounds.h;
    const tokens = [...s.querySelectorAll("#layer-tokens .token")].map((el) => {
      const [x, y] = shownAt(el);
      const size = sizeOf(el);
      return { el: el, x: x, y: y, size: size, disc: { x: x + 0.07, y: y + 0.07, w: size - 0.14, h: size - 0.14 } };
    });
    // Laid out already for the same tokens, names, badges and view: nothing to do (an update that moves no token
    // and changes no badge: a log line, a roll; in a fight most updates do change one). Laying the names out
    // measures every pill, a layout of the page. A map swapped anew brings a new layer (it is inside the <svg>);
    // an <svg> whose classes came again from the server, without "labels-laid", is laid out again too.
    const drawn = [scale, font, bounds.x, bounds.y, bounds.w, bounds.h, window.innerHeight,
      ...tokens.map((t) => labelKey(t))].join("\n");
    if (layer._drawn === drawn && s.classList.contains("labels-laid")) return;
    layer._drawn = drawn;
    // the most hemmed-in tokens choose first: their names have the fewest good places
    const crowd = (t) => tokens.filter((o) => o !== t && Math.abs(o.x - t.x) < t.size + 1 && Math.abs(o.y - t.y) < t.size + 1).length;
    tokens.forEach((t) => { t.crowd = tokens.length <= LABEL_AVOID_LIMIT ? crowd(t) : 0; });
    tokens.sort((a, b) => b.crowd - a.crowd || a.y - b.y || a.x - b.x);
    const avoid = tokens.length <= LABEL_AVOID_LIMIT;
    const placed = [];
    const leaders = []; // [x1, y1, x2, y2] of the lines drawn so far
    layer.replaceChildren();
    s.classList.add("labels-laid");
    // every name and badge made first, then all measured, then placed: a box read after each one added laid
    // the page out again each time (most of an update's time on every screen, a tenth of a second on a phone)
    const names = tokens.map((t) => {
      const g = document.createElementNS(NS, "g");
      g.setAttribute("class", ["label"].concat(["hidden-token", "mine", "pending"].filter((c) => t.el.classList.contains(c))).join(" "));
      g.dataset.for = t.el.dataset.tokenId;
      if (pending.has(g.dataset.for)) g.style.setProperty("--pending-delay", pendingDelay(pending.get(g.dataset.for)));
      const leader = document.createElementNS(NS, "line");
      leader.setAttribute("class", "label-leader");
      const pill = document.createElementNS(NS, "rect");
      pill.setAttribute("class", "label-pill");
      pill.setAttribute("stroke", t.el.dataset.color || "#1f2328");
      const text = document.createElementNS(NS, "text");
      text.setAttribute("class", "label-text");
      text.setAttribute("font-size", font);
      text.textContent = t.el.dataset.name;
      g.append(leader, pill, text);
      layer.appendChild(g);
      return { leader: leader, pill: pill, text: text };
    });
    const bh = badgePx(scale) / scale; // a badge pill's height, in squares
    const blocks = tokens.map((t) => badgeBlock(t, layer, bh)); // after every name, drawn over them
    names.forEach((n) => { n.tb = n.text.getBBox(); });
    blocks.forEach((b) => b && b.pills.forEach((p) => { p.tb = p.text.getBBox(); p.w = p.tb.width + bh * 0.7; }));
    tokens.forEach((t, i) => {
      const { leader, pill, text, tb } = names[i];
      const padX = font * 0.4, padY = font * 0.12;
      const w = tb.width + 2 * padX, h = tb.height + 2 * padY;
      const cx = t.x + t.size / 2, cy = t.y + t.size / 2;
      const below = [cx, t.y + t.size + gap + h / 2];
      const rectAt = (c) => ({ x: c[0] - w / 2, y: c[1] - h / 2, w: w, h: h });
      let best = below;
      if (avoid) {
        const cands = [below, [cx, t.y - gap - h / 2], [t.x + t.size + gap + w / 2, cy], [t.x - gap - w / 2, cy]];
        for (let j = -8; j <= 8; j++) {
          for (let i = -8; i <= 8; i++) cands.push([cx + i * w / 4, below[1] + j * (h + gap)]);
        }
        const dist = (c) => Math.hypot(c[0] - below[0], c[1] - below[1]);
        const free = (c, discsToo) => {
          const r = rectAt(c);
          if (!inside(r) || placed.some((p) => hits(r, p, 0.04))) return false;
          return !discsToo || !tokens.some((o) => hits(r, o.disc, 0));
        };
        // a pushed name's line should not cross other tokens (it would point at the
        // wrong one), nor other names, nor run under another name's pill
        const crossings = (c) => {
          const r = rectAt(c);
          const ex = clamp(cx, r.x, r.x + r.w), ey = clamp(cy, r.y, r.y + r.h);
          if (ex === cx && ey === cy) return 0;
          return tokens.filter((o) => o !== t && segmentNearDisc(cx, cy, ex, ey, o)).length
            + placed.filter((p) => segmentInRect(cx, cy, ex, ey, p)).length
            + leaders.filter((l) => segmentInRect(l[0], l[1], l[2], l[3], r)).length;
        };
        const cost = (c) => dist(c) + 2 * crossings(c);
        const pick = (discsToo) => {
          let choice = null, low = Infinity;
          for (const c of cands) {
            if (dist(c) - 0.01 > low) continue; // cost >= dist: nothing further away can win
            if (!free(c, discsToo)) continue;
            const k = cost(c);
            if (k < low) { low = k; choice = c; }
          }
          return choice;
        };
        best = pick(true) || pick(false) || below;
      }
      const r = rectAt(best);
      placed.push(r);
      t.label = r; // its badges may sit beside it
      pill.setAttribute("x", r.x); pill.setAttribute("y", r.y);
      pill.setAttribute("width", r.w); pill.setAttribute("height", r.h);
      pill.setAttribute("rx", Math.min(r.h / 2, font * 0.6));
      text.setAttribute("x", best[0] - (tb.x + tb.width / 2));
      text.setAttribute("y", best[1] - (tb.y + tb.height / 2));
      if (best !== below) { // pushed away: a line tells whose name it is
        const ex = clamp(cx, r.x, r.x + r.w), ey = clamp(cy, r.y, r.y + r.h);
        const len = Math.hypot(ex - cx, ey - cy) || 1;
        const rad = t.size / 2 - 0.07;
        leader.setAttribute("x1", cx + (ex - cx) / len * rad); leader.setAttribute("y1", cy + (ey - cy) / len * rad);
        leader.setAttribute("x2", ex); leader.setAttribute("y2", ey);
        leaders.push([cx, cy, ex, ey]);
        leader.setAttribute("stroke-width", Math.max(0.03, 2 / scale));
      } else {
        leader.remove();
      }
    });
    layoutBadges(tokens, blocks, placed, leaders, { bh: bh, scale: scale, inside: inside, avoid: avoid });
  }

  // --- badges: a token's wounds, conditions and resources (drawn by the token partial, server-side per
  // audience) as a column of pills beside it, pushed clear of the names and of each other as the
  // names are, with a line to their token when pushed away from it.
  // A token's badges as a block of pills (its line, then a pill per badge), added to ``layer``; null for none.
  // Measured by layoutLabels with the names (each pill's text box ``tb`` and width ``w``).
  function badgeBlock(t, layer, bh) {
    const marks = [...t.el.querySelectorAll(".badges > .badge")];
    if (!marks.length) return null;
    const block = document.createElementNS(NS, "g");
    block.setAttribute("class", ["badge-block"].concat(["hidden-token", "pending"].filter((c) => t.el.classList.contains(c))).join(" "));
    block.dataset.for = t.el.dataset.tokenId;
    if (pending.has(block.dataset.for)) block.style.setProperty("--pending-delay", pendingDelay(pending.get(block.dataset.for)));
    const leader = document.createElementNS(NS, "line");
    leader.setAttribute("class", "badge-leader");
    block.appendChild(leader);
    layer.appendChild(block);
    const pills = marks.map((m) => {
      const g = document.createElementNS(NS, "g");
      g.setAttribute("class", "badge-tag " + [...m.classList].filter((c) => c !== "badge").join(" "));
      const rect = document.createElementNS(NS, "rect");
      rect.setAttribute("class", "badge-pill");
      const text = document.createElementNS(NS, "text");
      text.setAttribute("class", "badge-text");
      text.setAttribute("font-size", bh * 0.66);
      text.textContent = (m.textContent || "").trim();
      g.append(rect, text);
      block.appendChild(g);
      return { rect: rect, text: text };
    });
    return { leader: leader, pills: pills };
  }

  function layoutBadges(tokens, blocks, placed, leaders, o) {
    const bh = o.bh; // a pill's height, in squares
    const gap = bh * 0.16, margin = 0.04;
    for (const [i, t] of tokens.entries()) {
      if (!blocks[i]) continue;
      const { leader, pills } = blocks[i];
      const w = Math.max(...pills.map((p) => p.w));
      const h = pills.length * bh + (pills.length - 1) * gap;
      const cx = t.x + t.size / 2, cy = t.y + t.size / 2;
      const home = [t.x + t.size + 0.02, t.y]; // beside the disc, on its right, level with its top
      const rectAt = (c) => ({ x: c[0], y: c[1], w: w, h: h });
      // beside the token's own name, they read as one: "Goblin 2 [Shaken] [3 ticks]", no line needed
      const L = t.label;
      const byName = L ? [[L.x + L.w + 0.04, L.y + (L.h - h) / 2], [L.x + (L.w - w) / 2, L.y + L.h + 0.04],
                          [L.x + (L.w - w) / 2, L.y - 0.04 - h], [L.x - 0.04 - w, L.y + (L.h - h) / 2]] : [];
      const BY_NAME_COST = 0.5; // after the spot by the disc, before anything further off
      let best = home, attached = false;
      if (o.avoid) {
        const step = Math.max(0.25, bh);
        const cands = [home, [t.x - 0.02 - w, t.y], [t.x + t.size + 0.02, t.y + t.size - h], [t.x - 0.02 - w, t.y + t.size - h]];
        for (let j = -7; j <= 7; j++) {
          for (let i = -7; i <= 7; i++) cands.push([home[0] + i * step, home[1] + j * step]);
        }
        const dist = (c) => Math.hypot(c[0] - home[0], c[1] - home[1]);
        const free = (c, discsToo) => {
          const r = rectAt(c);
          if (!o.inside(r) || placed.some((p) => hits(r, p, margin))) return false;
          return !discsToo || !tokens.some((x) => hits(r, x.disc, 0));
        };
        // a pushed block's line should not cross other tokens, names or lines (it would point at the wrong one)
        const crossings = (c) => {
          const r = rectAt(c);
          const ex = clamp(cx, r.x, r.x + r.w), ey = clamp(cy, r.y, r.y + r.h);
          return tokens.filter((x) => x !== t && segmentNearDisc(cx, cy, ex, ey, x)).length
            + placed.filter((p) => segmentInRect(cx, cy, ex, ey, p)).length
            + leaders.filter((l) => segmentInRect(l[0], l[1], l[2], l[3], r)).length;
        };
        const pick = (discsToo) => {
          let choice = null, low = Infinity, byLabel = false;
          for (const c of byName) {
            if (BY_NAME_COST < low && free(c, discsToo)) { low = BY_NAME_COST; choice = c; byLabel = true; break; }
          }
          for (const c of cands) {
            if (dist(c) - 0.01 > low) continue; // cost >= dist: nothing further away can win
            if (!free(c, discsToo)) continue;
            const k = dist(c) + 2 * crossings(c);
            if (k < low) { low = k; choice = c; byLabel = false; }
          }
          return choice && { c: choice, byLabel: byLabel };
        };
        const found = pick(true) || pick(false);
        if (found) { best = found.c; attached = found.byLabel; }
      }
      const r = rectAt(best);
      placed.push(r);
      pills.forEach((p, k) => {
        const y = r.y + k * (bh + gap);
        p.rect.setAttribute("x", r.x); p.rect.setAttribute("y", y);
        p.rect.setAttribute("width", p.w); p.rect.setAttribute("height", bh);
        p.rect.setAttribute("rx", bh / 2);
        p.rect.setAttribute("stroke-width", Math.max(0.015, 1.5 / o.scale));
        p.text.setAttribute("x", r.x + bh * 0.35 - p.tb.x);
        p.text.setAttribute("y", y + bh / 2 - (p.tb.y + p.tb.height / 2));
      });
      // pushed off its token and off its name: a line from the disc's edge says whose badges they are
      const ex = clamp(cx, r.x, r.x + r.w), ey = clamp(cy, r.y, r.y + r.h);
      const len = Math.hypot(ex - cx, ey - cy) || 1;
      const rad = t.size / 2 - 0.07;
      if (!attached && len > rad + 0.2) {
        leader.setAttribute("x1", cx + (ex - cx) / len * rad); leader.setAttribute("y1", cy + (ey - cy) / len * rad);
        leader.setAttribute("x2", ex); leader.setAttribute("y2", ey);
        leader.setAttribute("stroke-width", Math.max(0.03, 2 / o.scale));
        leaders.push([cx, cy, ex, ey]);
      } else {
        leader.remove();
      }
    }
  }
  let layoutQueued = false;
  function queueLayout() {
    if (layoutQueued) return;
    layoutQueued = true;
    requestAnimationFrame(() => { layoutQueued = false; layoutLabels(); });
  }
  document.addEventListener("tacmap:update", layoutLabels);
  document.addEventListener("tacmap:replay", layoutLabels); // a past moment's tokens: their names and badges too
  if (window.tacmap) window.tacmap.relayout = queueLayout; // screenview.js: the view moved, the names follow
  window.addEventListener("resize", queueLayout);
  if (window.ResizeObserver) new ResizeObserver(queueLayout).observe(frame);
  // the fonts in: the same names measure otherwise, laid out again whatever the tokens
  if (document.fonts && document.fonts.ready) {
    document.fonts.ready.then(() => { const l = document.getElementById("layer-labels"); if (l) l._drawn = null; queueLayout(); });
  }

  // --- zoom (buttons, wheel with ctrl, pinch) and pan ------------------------
  let zoom = 1; // 1: the map as wide as its frame
  let zoomed = null; // the <svg> the zoom was put on (a map swapped whole is a new one)
  function applyZoom(z, focus) {
    const before = zoom;
    zoom = clamp(z, Math.min(0.5, fitZoom()), mostZoom());
    const s = svg();
    zoomed = s;
    const box = s.viewBox && s.viewBox.baseVal; // the frame's size before any script (app.css) follows the map
    if (box && box.width && !onScreen) {
      frame.style.setProperty("--map-cols", box.width);
      frame.style.setProperty("--map-rows", box.height);
    }
    s.style.width = (zoom * 100) + "%";
    if (focus) { // keep the point under the fingers where it is
      const k = zoom / before;
      frame.scrollLeft = (frame.scrollLeft + focus[0]) * k - focus[0];
      frame.scrollTop = (frame.scrollTop + focus[1]) * k - focus[1];
    }
    frame.dataset.zoom = zoom.toFixed(2);
    layoutLabels();
  }
  // The whole map in view ("fit"): as wide as its frame at most, and no taller than the room the
  // frame has: its own max-height, and the window below the frame's top on the page (the toolbars
  // above take their share; a wide map on a short laptop screen would otherwise lose its bottom).
  function fitZoom() {
    if (onScreen) return 1; // the table screen's map fills its box both ways by itself (CSS)
    const s = svg();
    const box = s && s.viewBox && s.viewBox.baseVal;
    if (!box || !box.width || !frame.clientWidth) return 1;
    const tall = frame.clientWidth * box.height / box.width; // the map's height as wide as the frame
    const edges = frame.offsetHeight - frame.clientHeight;
    const top = frame.getBoundingClientRect().top + window.scrollY;
    let room = window.innerHeight - top - edges - 8;
    const cap = parseFloat(getComputedStyle(frame).maxHeight);
    if (cap) room = Math.min(room, cap - edges);
    room = Math.max(room, 160); // a tiny window: a strip of map, not none
    return clamp(room / tall, 0.2, 1);
  }
  // Too small to touch is not fit: on a phone start with squares of at least 42 px (a token a
  // fingertip can hold), on a laptop 24 px, and let the fingers (or the scroll bars) pan. A square, and a
  // hex across its flat sides, is one unit of the drawing: the map's viewBox is as wide as the board's
  // drawing and a half-unit margin each side (a hex board's is not its count of hexes + 1).
  function readableZoom() {
    if (onScreen) return 1;
    return Math.max(fitZoom(), readableCell() / (frame.clientWidth / drawingWidth()));
  }
  function readableCell() { return frame.clientWidth < 700 ? 42 : 24; }
  // Zoomed in five times at most, or on a big map (300 squares across a phone: 1 px a square fitted) as far
  // as squares twice the readable size
  function mostZoom() {
    return onScreen ? 5 : Math.max(5, 2 * readableCell() / (frame.clientWidth / drawingWidth()));
  }
  // The map's width in units of the drawing (its viewBox: a square, or a hex across its flat sides, is one)
  function drawingWidth() {
    const box = svg().viewBox && svg().viewBox.baseVal;
    return box && box.width ? box.width : width() + 1;
  }

  function centreOn(el) {
    const body = el.querySelector(".token-body") || el;
    const r = body.getBoundingClientRect();
    const f = frame.getBoundingClientRect();
    frame.scrollLeft += (r.left + r.width / 2) - (f.left + frame.clientLeft + frame.clientWidth / 2);
    frame.scrollTop += (r.top + r.height / 2) - (f.top + frame.clientTop + frame.clientHeight / 2);
  }
  let found = -1;
  function findMine() {
    const mine = [...document.querySelectorAll("#layer-tokens .token.mine")];
    if (!mine.length) {
      if (window.tacmap) window.tacmap.flash(t("The GM has not given you a token yet."), "info");
      return;
    }
    if (zoom < readableZoom()) applyZoom(readableZoom());
    found = (found + 1) % mine.length; // again: the next of your tokens
    const el = mine[found];
    frame.scrollIntoView({ block: "nearest" });
    centreOn(el);
    el.classList.remove("found");
    void el.getBoundingClientRect();
    el.classList.add("found");
  }

  // The starting zoom and "fit" follow the window (resized, the map swapped for another size)
  // until the user zooms by hand.
  let follow = readableZoom;
  document.querySelectorAll("[data-zoom]").forEach((b) => b.addEventListener("click", () => {
    const what = b.dataset.zoom;
    if (what === "mine") { findMine(); return; }
    follow = what === "fit" ? fitZoom : null;
    applyZoom(what === "in" ? zoom * 1.25 : what === "out" ? zoom / 1.25 : fitZoom());
  }));
  applyZoom(readableZoom());
  // A map swapped whole (another map, a new size, zones, fog switched) keeps the zoom, or is fitted again
  // while the zoom follows the window. (htmx hands the new <svg> the old one's style as it swaps it in:
  // so it is told by being another element, not by a missing width.)
  document.addEventListener("tacmap:update", () => {
    if (svg() === zoomed) return;
    // another map shown: the frame's height planned for the first one's tokens (app.css) no longer applies
    if (frame.dataset.fight !== undefined && frame.dataset.fight !== svg().dataset.mapId) delete frame.dataset.fight;
    applyZoom(follow ? follow() : zoom);
  });
  let refit = 0;
  window.addEventListener("resize", () => {
    if (!follow || refit) return;
    refit = requestAnimationFrame(() => { refit = 0; if (follow) applyZoom(follow()); });
  });
  // A phone opens on the whole fight: every token it is shown in view (its own and the foes), with the names and
  // badges drawn beside them, as large as that allows, never smaller than the whole map nor larger than readable
  // squares; centred on them.
  function boxOf(selector, box) {
    for (const el of document.querySelectorAll(selector)) {
      const r = el.getBoundingClientRect();
      if (!r.width) continue;
      box = box ? { l: Math.min(box.l, r.left), t: Math.min(box.t, r.top), r: Math.max(box.r, r.right), b: Math.max(box.b, r.bottom) }
                : { l: r.left, t: r.top, r: r.right, b: r.bottom };
    }
    return box;
  }
  const tokensBox = () => boxOf("#layer-tokens .token .token-body");
  // the discs and what layoutLabels drew beside them: names and badge pills (in screen px, whatever the zoom)
  const labelledBox = () => boxOf("#layer-labels .label-pill, #layer-labels .badge-pill", tokensBox());
  // The share of the zoom now at which the fight fits the frame with ``margin`` px (at this zoom) round the discs,
  // or round the names and badges where they reach further: the discs' spread and that margin scale with the
  // zoom, the names and badges beside them do not. Height counts only where the frame scrolls the map up and down
  // (else the map's whole height is in view). Also the box to centre on at the zoom now (``view``).
  function fightFits(margin) {
    const discs = tokensBox(), all = labelledBox();
    const PAD = 4; // px between a name or badge and the frame's edge
    const over = { l: discs.l - all.l + PAD, r: all.r - discs.r + PAD, t: discs.t - all.t + PAD, b: all.b - discs.b + PAD };
    const view = { l: discs.l - Math.max(margin, over.l), r: discs.r + Math.max(margin, over.r),
                   t: discs.t - Math.max(margin, over.t), b: discs.b + Math.max(margin, over.b) };
    const across = (spread, over0, over1, room) => {
      let k = 1;
      for (let i = 0; i < 6; i++) { // the length needed grows with k: a few steps settle it
        const need = k * spread + Math.max(k * margin, over0) + Math.max(k * margin, over1);
        if (need <= room + 0.5) break;
        k *= room / need;
      }
      return k;
    };
    let k = across(discs.r - discs.l, over.l, over.r, frame.clientWidth);
    if (svg().getBoundingClientRect().height > frame.clientHeight + 2) {
      k = Math.min(k, across(discs.b - discs.t, over.t, over.b, frame.clientHeight));
    }
    return { k: k, view: view };
  }
  // On a phone the page's style sized the frame for that view before this ran (app.css: --cell, the squares' size
  // in px, from the tokens' extent _map.html gave): the zoom is the one that makes the map as tall as the frame,
  // a little less where the names and badges of the tokens at the edge would not fit (the frame then follows: its
  // --cell is set here).
  function startOnTheFight() {
    if (!tokensBox()) return;
    const planned = frame.dataset.fight !== undefined ? parseFloat(getComputedStyle(frame).getPropertyValue("--cell")) : 0;
    const cell = () => frame.clientWidth * zoom / drawingWidth(); // px a unit of the drawing (a square, a hex across)
    if (planned > 0 && frame.clientWidth) {
      const z = planned * drawingWidth() / frame.clientWidth;
      if (Math.abs(z - zoom) >= 0.005) applyZoom(z);
      const k = fightFits(cell()).k;
      if (k < 0.995 && zoom > 1) {
        const fitted = Math.max(1, zoom * k);
        frame.style.setProperty("--cell", (frame.clientWidth * fitted / drawingWidth()) + "px");
        applyZoom(fitted);
      }
    } else { // no planned size (a wider window, a browser without @property): worked out here
      if (zoom <= 1) return;
      const k = fightFits(cell()).k;
      if (k < 1) applyZoom(Math.max(fitZoom(), zoom * k));
    }
    follow = null; // a chosen view: a resize (a phone's address bar coming and going) keeps it, as a zoom by hand
    const box = fightFits(cell()).view;
    const f = frame.getBoundingClientRect();
    frame.scrollLeft += (box.l + box.r) / 2 - (f.left + frame.clientLeft + frame.clientWidth / 2);
    frame.scrollTop += (box.t + box.b) / 2 - (f.top + frame.clientTop + frame.clientHeight / 2);
  }
  startOnTheFight();

  frame.addEventListener("wheel", (e) => {
    if (!e.ctrlKey) return;
    e.preventDefault();
    follow = null;
    const r = frame.getBoundingClientRect();
    applyZoom(zoom * (e.deltaY < 0 ? 1.1 : 1 / 1.1), [e.clientX - r.left, e.clientY - r.top]);
  }, { passive: false });

  const touches = new Map();
  let pinch = null;
  frame.addEventListener("pointerdown", (e) => {
    // the table screen's view is the GM's to steer: fingers on the TV drag tokens, never pan or zoom it
    if (drags.size || e.pointerType === "mouse" || onScreen) return;
    touches.set(e.pointerId, [e.clientX, e.clientY]);
    if (touches.size === 2) {
      const [a, b] = [...touches.values()];
      pinch = { dist: Math.hypot(a[0] - b[0], a[1] - b[1]), zoom: zoom };
    }
  });
  frame.addEventListener("pointermove", (e) => {
    if (drags.size || !touches.has(e.pointerId)) return;
    const prev = touches.get(e.pointerId);
    touches.set(e.pointerId, [e.clientX, e.clientY]);
    if (touches.size === 2 && pinch) {
      follow = null;
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

  // The acting token's ring turns a dash every quarter second. A CSS animation would repaint the map
  // sixty times a second for as long as a fight lasts: most of a core on a laptop without a graphics
  // chip, and a phone's battery. A still ring for those who ask for less motion.
  const still = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : { matches: false };
  let ringStep = 0;
  setInterval(() => {
    if (document.hidden || still.matches) return;
    const rings = frame.querySelectorAll(".acting-ring");
    if (!rings.length) return;
    ringStep = (ringStep + 1) % 10; // the dash pattern repeats every 10 (pathLength 60, six dashes)
    for (const ring of rings) ring.style.strokeDashoffset = String(-ringStep);
  }, 240);
})();
