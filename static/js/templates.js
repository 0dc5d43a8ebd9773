// Area templates: lay one on the map from the Templates card, drag it, take it away; and the result card
// (the table screen's, a phone's for its own attacks), shown for a few seconds when a new attack comes in.
// The server decides who is under a template and draws it for every screen; this only sends commands.
(function () {
  "use strict";
  const frame = document.getElementById("map-frame");
  const svg = () => document.getElementById("map");
  const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));
  const half = (v) => Math.round(v * 2) / 2;

  const mapPoint = (clientX, clientY) => window.tacmap.mapPoint(clientX, clientY); // map.js
  const grid = () => window.tacgrid.of(svg()); // squares or hexes (grid.js)
  // on hexes a template is laid on the centre of a hex (in map units, as the server keeps it)
  const hexCentre = (g, mapXY) => {
    const w = parseInt(svg().dataset.width, 10), h = parseInt(svg().dataset.height, 10);
    const [x, y] = g.cellAt(mapXY);
    return g.centre([clamp(x, 0, w - 1), clamp(y, 0, h - 1)]);
  };
  const inBoard = (p) => {
    const g = grid();
    if (g.hex) return hexCentre(g, g.toMap([p.x, p.y]));
    return [clamp(half(p.x), 0, parseInt(svg().dataset.width, 10)), clamp(half(p.y), 0, parseInt(svg().dataset.height, 10))];
  };

  // --- laying a template: press "Place on the map", then click the map ----------------
  let arming = false;
  function arm(on) {
    arming = on;
    const button = document.getElementById("place-template");
    const hint = document.getElementById("template-hint");
    if (button) button.setAttribute("aria-pressed", on ? "true" : "false");
    if (hint) hint.hidden = !on;
    if (frame) frame.classList.toggle("placing", on);
  }
  document.addEventListener("click", (e) => {
    if (e.target.closest && e.target.closest("#place-template")) { arm(!arming); return; }
    const turn = e.target.closest && e.target.closest("[data-template-turn]");
    if (turn && window.tacmap) {
      window.tacmap.command({ type: "move_template", template_id: turn.dataset.templateTurn,
                              direction: Number(turn.dataset.direction) });
      return;
    }
    const remove = e.target.closest && e.target.closest("[data-template-remove]");
    if (remove && window.tacmap) {
      window.tacmap.command({ type: "remove_template", template_id: remove.dataset.templateRemove });
    }
  });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && arming) arm(false); });

  function placeAt(p) {
    const form = document.getElementById("template-form");
    if (!form || !window.tacmap) return;
    const payload = { type: "place_template", shape: form.elements.shape.value,
                      size: Number(form.elements.size.value) || 1, direction: Number(form.elements.direction.value) || 0 };
    const label = form.elements.label.value.trim();
    if (label) payload.label = label;
    const zone = p.target && p.target.closest && p.target.closest(".zone");
    if (svg().dataset.board === "zones") {
      if (!zone) { window.tacmap.flash(t("Click a zone: on a zone map a template covers a zone.")); return; }
      payload.zone = zone.dataset.zone;
    } else {
      [payload.x, payload.y] = inBoard(p);
    }
    window.tacmap.command(payload).then((ack) => { if (ack.ok) { arm(false); form.elements.label.value = ""; } });
  }

  // --- dragging a template (the GM's any, a player's own) ----------------------------
  function shift(el, dx, dy) {
    el.querySelectorAll(".template-shape, .template-label").forEach((g) => {
      if (dx || dy) g.setAttribute("transform", `translate(${dx} ${dy})`); else g.removeAttribute("transform");
    });
  }
  // someone else dragging one: it moves here too until the drop lands (or four seconds of silence);
  // a burst of previews is drawn once per frame, the newest of each template
  const moving = new Map();
  const newest = new Map();
  let drawFrame = 0;
  function drawMoves() {
    drawFrame = 0;
    newest.forEach((msg, id) => {
      const el = document.getElementById("template-" + id);
      if (!el) return;
      el.classList.add("previewing");
      shift(el, msg.dx, msg.dy);
      clearTimeout(moving.get(id));
      moving.set(id, setTimeout(() => { el.classList.remove("previewing"); shift(el, 0, 0); moving.delete(id); }, 4000));
    });
    newest.clear();
  }
  if (window.tacmap && window.tacmap.socket) {
    window.tacmap.socket.on("template_preview", (msg) => {
      if (msg.done) {
        newest.delete(msg.template_id);
        clearTimeout(moving.get(msg.template_id));
        moving.delete(msg.template_id);
        const el = document.getElementById("template-" + msg.template_id);
        if (el) el.classList.remove("previewing"); // the drop's update draws it where it lands
        return;
      }
      newest.set(msg.template_id, msg);
      if (document.hidden) { drawMoves(); return; }
      if (!drawFrame) drawFrame = requestAnimationFrame(drawMoves);
    });
  }
  // others see it on its way: at most one message per frame of this screen, only when it moved
  // since the last one sent; the frame after the pointer stops sends where it stopped
  function sendPreview() {
    const d = drag;
    if (!d) return;
    d.frame = 0;
    if (!window.tacmap.socket.connected) return;
    if (d.sent && d.sent[0] === d.moved[0] && d.sent[1] === d.moved[1]) return;
    d.sent = d.moved;
    window.tacmap.socket.emit("template_preview", { template_id: d.id, dx: d.moved[0], dy: d.moved[1] });
  }
  let drag = null;
  const landing = new Map(); // template id -> {to, n}: dropped, the answer not in yet
  let drops = 0;
  if (frame) {
    // on the document, before the map's own handlers: while laying a template a click on a token's
    // square lays it there instead of picking the token up
    document.addEventListener("pointerdown", (e) => {
      if (e.button > 0 || !window.tacmap || !svg() || svg().dataset.role === "screen") return;
      if (!frame.contains(e.target)) return;
      if (arming) {
        e.preventDefault();
        e.stopPropagation();
        const p = mapPoint(e.clientX, e.clientY);
        p.target = e.target;
        placeAt(p);
        return;
      }
      // a token of one's own on top is picked up as usual; one that is not, leaves the template under it
      const tok = window.tacmap.tokenUnder ? window.tacmap.tokenUnder(e) : e.target.closest && e.target.closest(".token");
      if (tok && tok.classList.contains("movable")) return;
      const hit = document.elementsFromPoint(e.clientX, e.clientY).find((n) => n.closest && n.closest(".area-template.movable"));
      const el = hit && hit.closest(".area-template.movable");
      if (!el) return;
      e.preventDefault();
      e.stopPropagation();
      const p = mapPoint(e.clientX, e.clientY);
      drag = { el: el, id: el.dataset.templateId, pointer: e.pointerId, start: [p.x, p.y],
               at: [parseFloat(el.dataset.x), parseFloat(el.dataset.y)], moved: [0, 0], sent: null, frame: 0 };
      frame.setPointerCapture(e.pointerId);
      el.classList.add("dragging");
    }, true);
    frame.addEventListener("pointermove", (e) => {
      if (!drag || e.pointerId !== drag.pointer) return;
      e.preventDefault();
      e.stopPropagation();
      const p = mapPoint(e.clientX, e.clientY);
      const g = grid();
      let moved;
      if (g.hex) { // from one hex centre to another: the shift in drawing units, and where it lands
        const [ax, ay] = g.toDraw(drag.at);
        drag.to = hexCentre(g, g.toMap([ax + p.x - drag.start[0], ay + p.y - drag.start[1]]));
        const [bx, by] = g.toDraw(drag.to);
        moved = [Math.round((bx - ax) * 1e4) / 1e4, Math.round((by - ay) * 1e4) / 1e4];
      } else {
        moved = [half(p.x - drag.start[0]), half(p.y - drag.start[1])];
      }
      if (moved[0] === drag.moved[0] && moved[1] === drag.moved[1]) return;
      drag.moved = moved;
      shift(drag.el, moved[0], moved[1]);
      if (!drag.frame) drag.frame = requestAnimationFrame(sendPreview);
    }, true);
    const end = (e, cancelled) => {
      if (!drag || e.pointerId !== drag.pointer) return;
      const d = drag;
      drag = null;
      e.stopPropagation();
      const cur = () => document.getElementById("template-" + d.id) || d.el; // an update may have drawn it afresh
      cur().classList.remove("dragging");
      if (d.frame) cancelAnimationFrame(d.frame);
      if (window.tacmap.socket.connected) {
        window.tacmap.socket.emit("template_preview", { template_id: d.id, dx: 0, dy: 0, done: true });
      }
      const back = () => cur().querySelectorAll("[transform]").forEach((g) => g.removeAttribute("transform"));
      if (cancelled || (!d.moved[0] && !d.moved[1])) { back(); return; }
      const payload = { type: "move_template", template_id: d.id };
      if (cur().dataset.zone) {
        const under = document.elementsFromPoint(e.clientX, e.clientY).find((n) => n.closest && n.closest(".zone"));
        if (!under) { back(); return; }
        payload.zone = under.closest(".zone").dataset.zone;
      } else {
        const w = parseInt(svg().dataset.width, 10), h = parseInt(svg().dataset.height, 10);
        if (d.to) [payload.x, payload.y] = d.to; // hexes: the centre it was dragged to, in map units
        else {
          payload.x = clamp(d.at[0] + d.moved[0], 0, w);
          payload.y = clamp(d.at[1] + d.moved[1], 0, h);
        }
      }
      const n = ++drops;
      if (payload.x !== undefined) landing.set(d.id, { to: [payload.x, payload.y], n: n });
      window.tacmap.command(payload).then((ack) => {
        if (landing.has(d.id) && landing.get(d.id).n === n) landing.delete(d.id);
        if (!ack.ok) back();
      });
    };
    // An update that comes during a drag or before a drop's answer (someone else's command)
    // draws the templates afresh where the server has them: keep a dragged or dropped one
    // where the hand put it until its own update lands.
    document.addEventListener("tacmap:update", () => {
      if (drag) {
        const el = document.getElementById("template-" + drag.id);
        if (el && el !== drag.el) { drag.el = el; el.classList.add("dragging"); shift(el, drag.moved[0], drag.moved[1]); }
      }
      landing.forEach((l, id) => {
        const el = document.getElementById("template-" + id);
        if (!el) { landing.delete(id); return; }
        const g = grid();
        const [tx, ty] = g.toDraw(l.to), [fx, fy] = g.toDraw([parseFloat(el.dataset.x), parseFloat(el.dataset.y)]);
        shift(el, Math.round((tx - fx) * 1e4) / 1e4, Math.round((ty - fy) * 1e4) / 1e4); // (0, 0) once it has landed
      });
    });
    frame.addEventListener("pointerup", (e) => end(e, false), true);
    frame.addEventListener("pointercancel", (e) => end(e, true), true);
  }

  // --- the result card (the table screen's, and a phone's for its own attacks) ------------
  const SHOW_MS = 9000;
  let shownSeq = null;
  let newestSeq = 0; // the newest attack this page has shown
  function showResult(first) {
    const card = document.getElementById("result-card");
    if (!card) return;
    const seq = card.dataset.seq || null;
    if (first) { shownSeq = seq; newestSeq = Number(seq) || 0; return; } // a page opened late does not replay an old attack
    if (!seq || seq === shownSeq) return;
    shownSeq = seq;
    // an older attack is the card again only because a newer one was undone: it is not news
    if (Number(seq) <= newestSeq) return;
    newestSeq = Number(seq);
    card.classList.add("shown");
    clearTimeout(showResult.timer);
    showResult.timer = setTimeout(() => {
      showResult.timer = null;
      const now = document.getElementById("result-card");
      if (now) now.classList.remove("shown");
    }, SHOW_MS);
  }
  showResult(true);
  // on a phone the card lies over the page: a tap puts it away
  document.addEventListener("click", (e) => {
    const card = e.target.closest && e.target.closest("#result-card.shown");
    if (!card || document.body.classList.contains("screen-view")) return;
    card.classList.remove("shown");
    clearTimeout(showResult.timer);
    showResult.timer = null;
  });
  document.addEventListener("tacmap:update", () => {
    const card = document.getElementById("result-card");
    // a swapped card keeps showing while its time runs
    if (card && card.dataset.seq === shownSeq && showResult.timer) card.classList.add("shown");
    showResult(false);
  });
})();
