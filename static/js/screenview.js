// The GM drives the table screen (#27). The GM's choice (#screen-view-state, webapp/game/tableside/screenview.py) is
// turned into the table screen's view box here: the whole map, a point at a zoom, a token followed as it
// moves, or squares true to size (square_mm on a TV screen_width_mm wide). The table screen reports the box
// it draws; the GM's page outlines it on its own map (drag it to pan the TV, wheel or pinch on it to zoom)
// and shows a small copy of what the table sees. The server keeps the choice; this file only draws it.
(function () {
  "use strict";
  const NS = "http://www.w3.org/2000/svg";
  const onScreen = document.body.classList.contains("screen-view");
  const onGM = document.body.classList.contains("gm-view");
  if (!onScreen && !onGM) return;
  const svg = () => document.getElementById("map");
  const frame = () => document.getElementById("map-frame");
  const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));
  const CARD_MM = 85.6; // a credit card's long side: the calibration line
  function readView() {
    const el = document.getElementById("screen-view-state");
    try { return JSON.parse(el.dataset.view); } catch (e) { return { mode: "fit", zoom: 1 }; }
  }
  // the map's size in drawing units: squares, or on hexes the hexes' extent (static/js/grid.js)
  const boardSize = () => {
    const w = parseInt(svg().dataset.width, 10), h = parseInt(svg().dataset.height, 10);
    const g = window.tacgrid ? window.tacgrid.of(svg()) : null;
    return g && g.hex ? g.toDraw(g.extent(w, h)) : [w, h];
  };
  const send = (payload) => window.tacmap.command(Object.assign({ type: "set_screen_view" }, payload));
  // the TV's whole picture in CSS pixels: what screen_width_mm measures (the calibration line uses the same)
  const screenPx = () => window.screen.width;
  function tokenCentre(id) {
    const el = id && document.getElementById("token-" + id);
    if (!el) return null;
    const m = /translate\(\s*(-?[\d.]+)[ ,]+(-?[\d.]+)/.exec(el.getAttribute("transform") || "");
    const size = parseInt(el.dataset.size || "1", 10) || 1;
    const x = m ? parseFloat(m[1]) : parseInt(el.dataset.x, 10), y = m ? parseFloat(m[2]) : parseInt(el.dataset.y, 10);
    return [x + size / 2, y + size / 2];
  }

  // --- the table screen: the view box -----------------------------------------
  if (onScreen) {
    let shown = null; // [x, y, w, h]: the box drawn now
    let drawnOn = null; // the <svg> it was drawn on (a map swapped whole is a new one)
    let anim = 0;
    let lastCentre = null;

    function target(view) {
      const s = svg();
      const r = s.getBoundingClientRect();
      const [W, H] = boardSize();
      if (!r.width || !r.height) return null;
      const fit = Math.min(r.width / (W + 1), r.height / (H + 1)); // pixels per square with the whole map in view
      const scale = view.true_scale ? view.square_mm * screenPx() / view.screen_width_mm
        : fit * (view.mode === "fit" ? 1 : view.zoom || 1);
      let c = [W / 2, H / 2];
      if (view.mode === "center" && view.center) c = view.center;
      if (view.mode === "follow") c = tokenCentre(view.follow) || lastCentre || c; // out of sight: stay put
      c = [clamp(c[0], 0, W), clamp(c[1], 0, H)];
      lastCentre = c;
      const w = r.width / scale, h = r.height / scale;
      return { box: [c[0] - w / 2, c[1] - h / 2, w, h], scale: scale, frame: [r.width, r.height] };
    }
    function setBox(b) {
      svg().setAttribute("viewBox", b.map((v) => +v.toFixed(4)).join(" "));
    }
    function report(t) {
      const tm = window.tacmap;
      if (!tm || !tm.socket || !tm.socket.connected || !t) return;
      const tokens = [...document.querySelectorAll("#layer-tokens .token")].map((el) => el.dataset.tokenId);
      tm.socket.emit("screen_box", { x: t.box[0], y: t.box[1], width: t.box[2], height: t.box[3],
                                     frame_w: t.frame[0], frame_h: t.frame[1], screen_w: screenPx(), tokens: tokens });
    }
    const ease = (k) => (k < 0.5 ? 4 * k * k * k : 1 - Math.pow(-2 * k + 2, 3) / 2);
    // smoothly, unless the map was drawn anew (its box starts whole) or the page is not shown
    function apply(now) {
      const t = target(readView());
      if (!t) return;
      cancelAnimationFrame(anim);
      const s = svg();
      const from = shown;
      const jump = now || !from || drawnOn !== s || document.hidden;
      // the box it shows already (most updates: a roll, a turn, a move the view does not follow): no glide, whose
      // 27 frames each drew the whole TV again for nothing (#71: two thirds of a fight's paints on the TV)
      const still = !jump && t.box.every((v, i) => Math.abs(v - from[i]) < 1e-4);
      drawnOn = s;
      s.dataset.scale = t.scale.toFixed(3); // pixels per square, as drawn (tests and the GM's page read it)
      s.dataset.view = readView().mode;
      if (still) { // (the names were laid out again by map.js's own update)
        s.dataset.settled = "1";
        report(t);
        return;
      }
      if (jump) {
        shown = t.box; setBox(shown); report(t);
        if (window.tacmap && window.tacmap.relayout) window.tacmap.relayout();
        return;
      }
      const start = performance.now(), ms = 450;
      const step = (time) => {
        const k = ease(Math.min(1, (time - start) / ms));
        shown = from.map((v, i) => v + (t.box[i] - v) * k);
        setBox(shown);
        if (k < 1) { anim = requestAnimationFrame(step); return; }
        s.dataset.settled = "1";
        report(t);
        if (window.tacmap && window.tacmap.relayout) window.tacmap.relayout();
      };
      s.dataset.settled = "0";
      anim = requestAnimationFrame(step);
    }
    // the GM chose another language for the table screen (issue #37): the page is drawn anew in it
    const language = readView().language || null;
    document.addEventListener("tacmap:update", () => {
      if ((readView().language || null) !== language) { window.location.reload(); return; }
      apply(false);
    });
    document.addEventListener("tacmap:replay", () => apply(false)); // a past moment's map, framed as the live one
    window.addEventListener("resize", () => apply(true));
    if (window.ResizeObserver) new ResizeObserver(() => apply(true)).observe(frame());
    apply(true);
    const whenUp = () => {
      if (!window.tacmap) return;
      window.tacmap.socket.on("connect", () => report(target(readView())));
      window.tacmap.socket.on("screen_box_ask", () => report(target(readView())));
    };
    whenUp();

    // --- the calibration aid: a line to stretch over a credit card's long side (85.6 mm) ---
    let aid = null, sending = 0;
    function lineMm(view) { // the TV's width the line is drawn for (96 CSS px to the inch until calibrated)
      return view.screen_width_mm || screenPx() * 25.4 / 96;
    }
    function calibrate(widthMm, done) {
      clearTimeout(sending);
      const go = () => window.tacmap.command({ type: "calibrate_screen", screen_width_mm: +widthMm.toFixed(2), done: !!done });
      if (done) go(); else sending = setTimeout(go, 250);
    }
    function drawAid() {
      const view = readView();
      if (!view.calibrating) { if (aid) { aid.remove(); aid = null; } return; }
      if (!aid) {
        aid = document.createElement("div");
        aid.className = "calibration";
        aid.id = "calibration";
        aid.innerHTML = '<p>Hold a credit card flat against the screen at the line\'s left end and stretch the line to the ' +
          'card\'s long side (85.6 mm): drag its right end, or use the buttons.</p>' +
          '<div class="calibration-line"><span class="calibration-bar"></span><span class="calibration-end" tabindex="0" ' +
          'role="slider" aria-label="' + t("The line's end") + '"></span></div>' +
          '<p><button type="button" data-cal="-1">shorter</button> <button type="button" data-cal="1">longer</button> ' +
          '<button type="button" data-cal="done">Done</button> <span class="calibration-width"></span></p>';
        document.body.appendChild(aid);
        aid.addEventListener("click", (e) => {
          const b = e.target.closest("[data-cal]");
          if (!b) return;
          const mm = aid.dataset.mm ? parseFloat(aid.dataset.mm) : lineMm(readView());
          if (b.dataset.cal === "done") { calibrate(mm, true); return; }
          setLine(lineOf(mm) + parseInt(b.dataset.cal, 10));
        });
        const end = aid.querySelector(".calibration-end");
        end.addEventListener("pointerdown", (e) => {
          e.preventDefault();
          end.setPointerCapture(e.pointerId);
          aid.dataset.dragging = "1";
          const bar = aid.querySelector(".calibration-bar").getBoundingClientRect();
          const move = (ev) => setLine(clamp(ev.clientX - bar.left, 50, window.innerWidth - bar.left - 10));
          end.addEventListener("pointermove", move);
          end.addEventListener("pointerup", () => {
            end.removeEventListener("pointermove", move);
            delete aid.dataset.dragging;
          }, { once: true });
        });
      }
      if (!aid.dataset.dragging) showLine(lineOf(lineMm(view)));
    }
    const lineOf = (mm) => CARD_MM * screenPx() / mm; // the line's length in CSS px on a TV mm wide
    function showLine(px) {
      const mm = CARD_MM * screenPx() / px;
      aid.dataset.mm = mm.toFixed(2);
      aid.querySelector(".calibration-bar").style.width = px.toFixed(2) + "px";
      aid.querySelector(".calibration-end").style.left = px.toFixed(2) + "px";
      aid.querySelector(".calibration-width").textContent = t("The TV's picture: {mm} mm wide", { mm: Math.round(mm) });
    }
    function setLine(px) {
      px = clamp(px, CARD_MM * screenPx() / 10000, CARD_MM * screenPx() / 100);
      showLine(px);
      calibrate(CARD_MM * screenPx() / px, false);
    }
    document.addEventListener("tacmap:update", drawAid);
    drawAid();
    return;
  }

  // --- the GM's page: the TV's outline on the map, the preview, the buttons ----------
  let box = null; // the screen's last report
  let outline = null;
  const active = () => { const s = svg(); return s && (s.dataset.mapId || "") === (s.dataset.activeMap || ""); };
  function drawOutline() {
    const s = svg();
    if (!s) return;
    if (!box || !active()) { if (outline) outline.remove(); return; }
    if (!outline || outline.ownerSVGElement !== s) {
      if (outline) outline.remove();
      outline = document.createElementNS(NS, "g");
      outline.setAttribute("id", "tv-outline");
      outline.setAttribute("class", "tv-outline");
      outline.innerHTML = '<rect class="tv-hit"/><rect class="tv-line"/><g class="tv-tab"><rect/><text>TV</text></g>';
      outline.setAttribute("aria-label", t("What the TV shows: drag to pan it, wheel or pinch to zoom"));
    }
    if (outline.parentNode !== s) s.appendChild(outline); // above everything, redrawn maps too
    const k = (s.getScreenCTM() || { a: 1 }).a || 1; // pixels per square on this page
    const [x, y, w, h] = box.view;
    for (const r of outline.querySelectorAll(".tv-hit, .tv-line")) {
      r.setAttribute("x", x); r.setAttribute("y", y); r.setAttribute("width", w); r.setAttribute("height", h);
    }
    outline.querySelector(".tv-hit").setAttribute("stroke-width", 16 / k);
    outline.querySelector(".tv-line").setAttribute("stroke-width", 3 / k);
    outline.querySelector(".tv-line").setAttribute("stroke-dasharray", `${10 / k} ${6 / k}`);
    const tab = outline.querySelector(".tv-tab");
    const tw = 34 / k, th = 20 / k;
    tab.querySelector("rect").setAttribute("x", x); tab.querySelector("rect").setAttribute("y", y - th);
    tab.querySelector("rect").setAttribute("width", tw); tab.querySelector("rect").setAttribute("height", th);
    const label = tab.querySelector("text");
    label.setAttribute("x", x + tw / 2); label.setAttribute("y", y - th / 2); label.setAttribute("font-size", 13 / k);
    outline.dataset.box = box.view.map((v) => v.toFixed(3)).join(" ");
  }

  // the preview: a copy of this map as the table sees it (no hidden tokens, nothing of the GM's), in the TV's box
  let previewQueued = 0;
  function drawPreview() {
    previewQueued = 0;
    const holder = document.getElementById("tv-preview");
    const s = svg();
    if (!holder || !s) return;
    if (!box) return;
    if (!active()) { holder.dataset.state = "preparing"; return; }
    const copy = s.cloneNode(true);
    // only the tokens the table screen draws (no hidden token, none in the players' fog), their names too
    const seen = new Set(box.tokens || []);
    copy.querySelectorAll("#layer-tokens .token, #layer-labels [data-for]").forEach((el) => {
      if (!seen.has(el.dataset.tokenId || el.dataset.for)) el.remove();
    });
    copy.querySelectorAll(".hidden-token, #layer-editor, #tv-outline, .door-hit, #layer-preview, title")
      .forEach((el) => el.remove());
    // a picture only: nothing in it is reached by Tab or read out (the page's own map is)
    copy.querySelectorAll("[tabindex]").forEach((el) => el.removeAttribute("tabindex"));
    copy.querySelectorAll("[id]").forEach((el) => { if (el.tagName.toLowerCase() !== "pattern") el.removeAttribute("id"); });
    copy.querySelectorAll("pattern").forEach((el) => el.removeAttribute("id")); // the page's own #grid serves
    copy.removeAttribute("id");
    copy.removeAttribute("style");
    copy.setAttribute("class", "tv-preview-map");
    copy.setAttribute("viewBox", box.view.join(" "));
    copy.setAttribute("aria-hidden", "true");
    holder.style.aspectRatio = `${box.frame_w} / ${box.frame_h}`;
    holder.replaceChildren(copy);
    holder.dataset.state = "shown";
  }
  const queuePreview = () => { if (!previewQueued) previewQueued = setTimeout(() => requestAnimationFrame(drawPreview), 120); };

  function describe(view) {
    const status = document.getElementById("tv-status");
    if (!status) return;
    const name = (id) => { const el = document.getElementById("token-" + id); return el ? el.dataset.name : t("a token"); };
    let text = view.mode === "fit" ? t("The whole map") : view.mode === "follow" ? t("Following {name}", { name: name(view.follow) })
      : t("Centred on ({x}, {y})", { x: tnum(view.center[0].toFixed(1)), y: tnum(view.center[1].toFixed(1)) });
    if (view.true_scale) text += t(", squares of {mm} mm (true scale, zoom locked)", { mm: tnum(view.square_mm) });
    else if (view.mode !== "fit") text += t(", zoom {zoom}×", { zoom: tnum((+view.zoom).toFixed(2)) });
    if (view.square_mm && view.screen_width_mm && view.board === "zones") text += t("; true scale is off on a zone map");
    status.textContent = text + ".";
    document.querySelectorAll('[data-tv="in"], [data-tv="out"]').forEach((b) => { b.disabled = !!view.true_scale; });
    const form = document.getElementById("tv-scale-form");
    if (form) for (const name of ["square_mm", "screen_width_mm"]) {
      const f = form.elements[name];
      if (document.activeElement !== f) { f.value = view[name] == null ? "" : view[name]; f.defaultValue = f.value; }
    }
    const cal = document.getElementById("tv-calibrating");
    if (cal) cal.hidden = !view.calibrating;
    const langSel = document.getElementById("tv-language");
    if (langSel && document.activeElement !== langSel) langSel.value = view.language || "";
    const calBtn = document.getElementById("tv-calibrate");
    if (calBtn) calBtn.textContent = view.calibrating ? t("Close the calibration") : t("Calibrate on the TV");
  }
  function fillFollow(view) {
    const sel = document.getElementById("tv-follow");
    if (!sel || document.activeElement === sel) return;
    const tokens = [...document.querySelectorAll("#layer-tokens .token:not(.hidden-token)")];
    sel.replaceChildren(new Option(t("no one"), ""));
    for (const el of tokens) sel.appendChild(new Option(el.dataset.name, el.dataset.tokenId));
    sel.value = view.mode === "follow" && view.follow ? view.follow : "";
  }
  // the GM zooms their own map: the outline's lines and tab keep their size in pixels
  const zoomed = window.ResizeObserver ? new ResizeObserver(() => drawOutline()) : null;
  function refresh() {
    const view = readView();
    describe(view);
    fillFollow(view);
    if (zoomed && svg()) zoomed.observe(svg());
    drawOutline();
    queuePreview();
  }
  document.addEventListener("tacmap:update", refresh);
  window.addEventListener("resize", drawOutline);
  refresh();
  if (window.tacmap) {
    const ask = () => window.tacmap.socket.emit("screen_box", { ask: true });
    window.tacmap.socket.on("connect", ask);
    if (window.tacmap.socket.connected) ask();
    window.tacmap.socket.on("screen_box", (b) => {
      box = Object.assign({}, b, { view: [b.x, b.y, b.width, b.height] });
      const none = document.querySelector("#tv-preview .tv-none");
      if (none) none.remove();
      drawOutline();
      queuePreview();
    });
  }

  // the buttons
  const zoomNow = (view) => (view.mode === "fit" ? 1 : +view.zoom || 1);
  document.getElementById("screen-panel").addEventListener("click", (e) => {
    const b = e.target.closest("[data-tv]");
    if (!b) return;
    const view = readView();
    const what = b.dataset.tv;
    if (what === "fit") send({ fit: true });
    else if (what === "in" || what === "out") send({ zoom: +clamp(zoomNow(view) * (what === "in" ? 1.25 : 0.8), 0.25, 10).toFixed(3) });
    else if (what === "scale-off") send({ square_mm: null });
    else if (what === "calibrate") send({ calibrate: !view.calibrating });
    else if (what === "calibrate-done") send({ calibrate: false });
    else if (what === "longer" || what === "shorter") {
      // a longer line on the TV is a narrower TV: the line is 85.6 mm drawn for this width
      const mm = view.screen_width_mm || (box ? box.screen_w : window.screen.width) * 25.4 / 96;
      send({ screen_width_mm: +clamp(mm * (what === "longer" ? 0.995 : 1.005), 100, 10000).toFixed(2) });
    }
  });
  const langSel = document.getElementById("tv-language");
  if (langSel) langSel.addEventListener("change", (e) => send({ language: e.target.value || null }));
  document.getElementById("tv-follow").addEventListener("change", (e) => {
    if (e.target.value) send({ follow: e.target.value }); else send({ center: readView().center || centreOf() });
  });
  function centreOf() {
    if (box) return [+(box.x + box.width / 2).toFixed(2), +(box.y + box.height / 2).toFixed(2)];
    const [W, H] = boardSize();
    return [W / 2, H / 2];
  }
  document.getElementById("tv-scale-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const f = e.target.elements;
    const payload = {};
    for (const name of ["square_mm", "screen_width_mm"]) {
      const v = f[name].value.trim();
      if (v === "") { window.tacmap.flash(name === "square_mm" ? t("The square's size is needed for true scale") : t("The TV's width is needed for true scale")); return; }
      payload[name] = parseFloat(v);
    }
    send(payload).then((ack) => { if (ack.ok) window.tacmap.flash(t("The TV draws squares true to scale now."), "info"); });
  });

  // --- the outline: drag it to pan the TV, wheel or pinch on it to zoom --------------
  let hold = null; // {pointers: Map id -> [x, y], start: the map point, view: the box at the start, dist}
  const mapPoint = (x, y) => window.tacmap.mapPoint(x, y);
  function centreOfBox(v) { return [v[0] + v[2] / 2, v[1] + v[3] / 2]; }
  function sendCentre(v) {
    const [W, H] = boardSize();
    const c = centreOfBox(v);
    send({ center: [+clamp(c[0], 0, W).toFixed(2), +clamp(c[1], 0, H).toFixed(2)] });
  }
  function sendZoom(factor) {
    const view = readView();
    if (view.true_scale) { window.tacmap.flash(t("The TV's zoom is locked at true scale: turn true scale off to zoom."), "info"); return false; }
    send({ zoom: +clamp(zoomNow(view) * factor, 0.25, 10).toFixed(3) });
    return true;
  }
  // scaled round its centre: what the TV will show, at once, before the TV reports it
  function scaled(v, factor) {
    const [cx, cy] = centreOfBox(v);
    return [cx - v[2] / factor / 2, cy - v[3] / factor / 2, v[2] / factor, v[3] / factor];
  }
  document.addEventListener("pointerdown", (e) => {
    if (!e.target.closest || !e.target.closest("#tv-outline") || !box) return;
    e.preventDefault();
    e.stopPropagation(); // not a token drag, not a pan of this page's map
    if (!hold) hold = { pointers: new Map(), view: box.view.slice(), moved: false };
    hold.pointers.set(e.pointerId, [e.clientX, e.clientY]);
    const p = mapPoint(e.clientX, e.clientY);
    hold.start = [p.x, p.y];
    hold.view = box.view.slice();
    if (hold.pointers.size === 2) {
      const [a, b] = [...hold.pointers.values()];
      hold.dist = Math.hypot(a[0] - b[0], a[1] - b[1]);
      hold.factor = 1;
    }
    try { e.target.setPointerCapture(e.pointerId); } catch (err) { /* a synthetic pointer */ }
  }, true);
  document.addEventListener("pointermove", (e) => {
    if (!hold || !hold.pointers.has(e.pointerId)) return;
    e.preventDefault();
    hold.pointers.set(e.pointerId, [e.clientX, e.clientY]);
    if (hold.pointers.size === 2) { // a pinch on the outline: zoom the TV
      const [a, b] = [...hold.pointers.values()];
      hold.factor = Math.hypot(a[0] - b[0], a[1] - b[1]) / hold.dist;
      box.view = scaled(hold.view, hold.factor);
    } else {
      const p = mapPoint(e.clientX, e.clientY);
      box.view = [hold.view[0] + p.x - hold.start[0], hold.view[1] + p.y - hold.start[1], hold.view[2], hold.view[3]];
    }
    hold.moved = true;
    drawOutline();
  }, true);
  function release(e) {
    if (!hold || !hold.pointers.has(e.pointerId)) return;
    hold.pointers.delete(e.pointerId);
    if (hold.pointers.size) return;
    const h = hold;
    hold = null;
    if (!h.moved) return;
    if (h.factor && Math.abs(h.factor - 1) > 0.02) { if (!sendZoom(h.factor)) { box.view = h.view; drawOutline(); } }
    else sendCentre(box.view);
  }
  document.addEventListener("pointerup", release, true);
  document.addEventListener("pointercancel", release, true);
  let wheelFactor = 1, wheelTimer = 0;
  document.addEventListener("wheel", (e) => {
    if (!e.target.closest || !e.target.closest("#tv-outline") || !box) return;
    e.preventDefault();
    e.stopPropagation();
    if (readView().true_scale) { sendZoom(1); return; }
    const f = e.deltaY < 0 ? 1.1 : 1 / 1.1;
    wheelFactor *= f;
    box.view = scaled(box.view, f);
    drawOutline();
    clearTimeout(wheelTimer);
    wheelTimer = setTimeout(() => { const k = wheelFactor; wheelFactor = 1; sendZoom(k); }, 250);
  }, { passive: false, capture: true });
})();
