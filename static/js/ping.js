// Pings: press and hold the map (about half a second), or right-click it, and the spot flashes on
// every screen with your name. Nothing is stored; the table screen shows pings but cannot send one.
(function () {
  "use strict";
  const frame = document.getElementById("map-frame");
  if (!frame || !window.tacmap) return;
  const NS = "http://www.w3.org/2000/svg";
  const svg = () => document.getElementById("map");
  const HOLD_MS = 500;
  const SLOP_PX = 10; // a finger that moves this far is panning, not pinging
  const SHOW_MS = 2600;

  const mapPoint = (clientX, clientY) => window.tacmap.mapPoint(clientX, clientY); // map.js
  const canPing = () => svg() && svg().dataset.role !== "screen";

  function send(clientX, clientY) {
    const drawnAt = mapPoint(clientX, clientY);
    const w = parseInt(svg().dataset.width, 10), h = parseInt(svg().dataset.height, 10);
    // sent in map units (on hexes, grid.js: the drawing's stretch taken out; the ragged edge's overhang
    // kept on the board)
    const g = window.tacgrid.of(svg());
    const [mx, my] = g.toMap([drawnAt.x, drawnAt.y]);
    if (mx < 0 || my < 0 || (!g.hex && (mx > w || my > h))) return;
    const p = { x: Math.min(mx, w), y: Math.min(my, h) };
    window.tacmap.socket.emit("map_ping", { x: Math.round(p.x * 100) / 100, y: Math.round(p.y * 100) / 100 }, (ack) => {
      if (ack && !ack.ok) window.tacmap.flash(ack.error);
    });
  }

  let hold = null;
  frame.addEventListener("pointerdown", (e) => {
    if (!canPing() || e.button > 0) return;
    if (e.target.closest && e.target.closest(".token, .area-template.movable, .door-hit")) return;
    clearTimeout(hold && hold.timer);
    hold = { id: e.pointerId, x: e.clientX, y: e.clientY };
    hold.timer = setTimeout(() => { if (hold) { send(hold.x, hold.y); hold.fired = true; } }, HOLD_MS);
  });
  frame.addEventListener("pointermove", (e) => {
    if (hold && e.pointerId === hold.id && Math.hypot(e.clientX - hold.x, e.clientY - hold.y) > SLOP_PX) {
      clearTimeout(hold.timer);
      hold = null;
    }
  });
  const release = (e) => { if (hold && e.pointerId === hold.id) { clearTimeout(hold.timer); hold = null; } };
  frame.addEventListener("pointerup", release);
  frame.addEventListener("pointercancel", release);
  frame.addEventListener("contextmenu", (e) => {
    // a right-click pings; a long press on a phone already has (the menu would cover the map)
    e.preventDefault();
    if (!canPing()) return;
    if (hold && hold.fired) return; // the long press has pinged already
    if (hold) { clearTimeout(hold.timer); hold.fired = true; } // the press's own menu: one ping, not two
    send(e.clientX, e.clientY);
  });

  function flashAt(msg) {
    const s = svg();
    if (!s) return;
    let layer = document.getElementById("layer-pings");
    if (!layer) {
      layer = document.createElementNS(NS, "g");
      layer.id = "layer-pings";
      s.appendChild(layer);
    }
    const g = document.createElementNS(NS, "g");
    g.setAttribute("class", "ping");
    const [dx, dy] = window.tacgrid.of(s).toDraw([msg.x, msg.y]); // map units, drawn (hexes: stretched)
    g.setAttribute("transform", `translate(${dx} ${dy})`);
    for (const [cls, r] of [["ping-wave", 0.4], ["ping-wave late", 0.4], ["ping-dot", 0.18]]) {
      const c = document.createElementNS(NS, "circle");
      c.setAttribute("class", cls);
      c.setAttribute("r", r);
      g.appendChild(c);
    }
    const text = document.createElementNS(NS, "text");
    text.setAttribute("class", "ping-name");
    text.setAttribute("y", -0.75);
    text.textContent = msg.by;
    g.appendChild(text);
    layer.appendChild(g);
    setTimeout(() => g.remove(), SHOW_MS);
  }
  window.tacmap.socket.on("map_ping", flashAt);
})();
