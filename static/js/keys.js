// The map from the keyboard, and read aloud (#27): tokens are focusable (Tab; each has its accessible name,
// webapp/game/bridge/describe.py); the arrow keys move the focused token one square (or hex), diagonals with the numeric
// pad or with Shift and two arrows held together (Shift+Up+Right: up and to the right); Enter opens its
// sheet. Moves, turns and attack results are said in the polite live region (#announce, _live.html).
// A move goes the way a drop does (map.js): shown at once, the server may refuse it (the reason is flashed).
(function () {
  "use strict";
  const frame = document.getElementById("map-frame");
  const live = document.getElementById("live");
  if (!frame || !live || !window.tacmap) return;
  const svg = () => document.getElementById("map");
  const tokenEl = (id) => document.getElementById("token-" + id);
  const tokenOf = (el) => (el && el.closest ? el.closest("#layer-tokens .token") : null);
  const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));

  const ARROWS = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  // the numeric pad by its keys' places (the same with Num Lock on or off)
  const PAD = { Numpad1: [-1, 1], Numpad2: [0, 1], Numpad3: [1, 1], Numpad4: [-1, 0], Numpad6: [1, 0],
                Numpad7: [-1, -1], Numpad8: [0, -1], Numpad9: [1, -1] };

  // On hexes a key goes to the neighbour that lies most nearly its way (the offset of a diagonal is not
  // a neighbour on every row). Where two lie equally near (Up on pointy-top hexes, Left and Right on
  // flat-top ones), the one in the same column or row: pressed again and again, the token zigzags
  // straight on.
  function hexStep(g, at, d) {
    const c = g.centre(at), len = Math.hypot(d[0], d[1]);
    let best = null, near = -Infinity;
    for (const n of g.neighbours(at)) {
      const e = g.centre(n), vx = e[0] - c[0], vy = e[1] - c[1];
      const k = (vx * d[0] + vy * d[1]) / (Math.hypot(vx, vy) * len);
      if (k > near + 1e-6 || (k > near - 1e-6 && (n[0] === at[0] || n[1] === at[1]))) { best = n; near = Math.max(k, near); }
    }
    return best;
  }

  function step(tok, d) {
    const id = tok.dataset.tokenId;
    const at = window.tacmap.shownAt(id);
    if (!at || !window.tacmap.moveToken) return;
    const s = svg();
    const size = parseInt(tok.dataset.size || "1", 10) || 1;
    const w = parseInt(s.dataset.width, 10), h = parseInt(s.dataset.height, 10);
    const g = window.tacgrid ? window.tacgrid.of(s) : null;
    let cell;
    if (g && g.hex) {
      const n = hexStep(g, at, d);
      cell = n && n[0] >= 0 && n[1] >= 0 && n[0] < w && n[1] < h ? n : at;
    } else {
      cell = [clamp(at[0] + d[0], 0, w - size), clamp(at[1] + d[1], 0, h - size)];
    }
    if (cell[0] === at[0] && cell[1] === at[1]) {
      window.tacmap.flash(tok.dataset.name + " is at the edge of the map.", "info");
      return;
    }
    window.tacmap.moveToken(id, cell);
  }

  function openSheet(tok) {
    const mayOpen = svg().dataset.role === "gm" || tok.classList.contains("mine");
    if (!mayOpen) {
      window.tacmap.flash(svg().dataset.role === "screen" ? t("The table screen opens no sheets.")
                          : t("{name}'s sheet is for the GM and its player.", { name: tok.dataset.name }), "info");
      return;
    }
    window.open(`/games/${live.dataset.game}/tokens/${tok.dataset.tokenId}/sheet`, "_blank");
  }

  // Shift and arrows: held together they make one diagonal step; a single arrow steps when let go
  const held = new Set();
  let chordUsed = false;
  frame.addEventListener("keydown", (e) => {
    const tok = tokenOf(e.target);
    if (!tok || e.ctrlKey || e.altKey || e.metaKey) return;
    if (e.key === "Enter") { e.preventDefault(); openSheet(tok); return; }
    const pad = PAD[e.code];
    const arrow = pad ? null : ARROWS[e.key];
    if (!pad && !arrow) return;
    e.preventDefault(); // the arrows move the token, not the page
    if (pad) { step(tok, pad); return; }
    if (!e.shiftKey) { step(tok, arrow); return; }
    if (e.repeat) return;
    held.add(e.key);
    const keys = [...held].map((k) => ARROWS[k]);
    const dx = keys.reduce((a, k) => a + k[0], 0), dy = keys.reduce((a, k) => a + k[1], 0);
    if (held.size === 2 && dx && dy) { chordUsed = true; step(tok, [clamp(dx, -1, 1), clamp(dy, -1, 1)]); }
  });
  frame.addEventListener("keyup", (e) => {
    if (!ARROWS[e.key] || !held.has(e.key)) { if (e.key === "Shift" && !held.size) chordUsed = false; return; }
    const tok = tokenOf(e.target);
    if (held.size === 1 && !chordUsed && tok) step(tok, ARROWS[e.key]);
    held.delete(e.key);
    if (!held.size) chordUsed = false;
  });
  frame.addEventListener("focusout", () => { held.clear(); chordUsed = false; });

  // A live update draws a token afresh (its move landed, a badge changed): the focus goes with it.
  let refocus = null;
  document.body.addEventListener("htmx:oobBeforeSwap", () => {
    const tok = tokenOf(document.activeElement);
    if (tok) refocus = tok.dataset.tokenId;
  });
  document.addEventListener("tacmap:update", () => {
    const id = refocus;
    refocus = null;
    const a = document.activeElement;
    if (id && (!a || a === document.body || !a.isConnected)) {
      const el = tokenEl(id);
      if (el) el.focus({ preventScroll: true });
    }
  });

  // --- said aloud: moves, turns, attack results ----------------------------------------------
  const seen = { where: new Map(), acting: null, attack: 0 };
  function newestAttack() {
    const entry = document.querySelector("#log li.attack[data-seq]"); // newest first
    if (entry) {
      const text = [...entry.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join(" ");
      return { seq: parseInt(entry.dataset.seq, 10) || 0, text: text.trim() };
    }
    const card = document.getElementById("result-card");
    if (card && card.dataset.seq) {
      const part = (sel) => { const p = card.querySelector(sel); return p ? p.textContent.trim() : ""; };
      return { seq: parseInt(card.dataset.seq, 10) || 0,
               text: [part(".result-who"), part(".result-verdict"), part(".result-summary")].filter(Boolean).join(": ") };
    }
    return null;
  }
  function look() {
    const now = { where: new Map(), acting: null, names: new Map(), mine: new Set() };
    for (const tok of document.querySelectorAll("#layer-tokens .token")) {
      now.where.set(tok.dataset.tokenId, tok.dataset.where || "");
      now.names.set(tok.dataset.tokenId, tok.dataset.name);
      if (tok.classList.contains("mine")) now.mine.add(tok.dataset.tokenId);
      if (tok.classList.contains("acting")) now.acting = tok.dataset.tokenId;
    }
    now.attack = newestAttack();
    return now;
  }
  function remember(now) {
    seen.where = now.where;
    seen.acting = now.acting;
    if (now.attack) seen.attack = Math.max(seen.attack, now.attack.seq);
  }
  function say(lines) {
    const region = document.getElementById("announce");
    if (!region || !lines.length) return;
    region.textContent = "";
    // a new text node in an emptied region: said even when it is the same words as last time
    setTimeout(() => { region.textContent = lines.join(". ") + "."; }, 50);
  }
  remember(look());
  document.addEventListener("tacmap:update", () => {
    const now = look();
    const lines = [];
    now.where.forEach((where, id) => {
      const before = seen.where.get(id);
      if (before !== undefined && where && before !== where) {
        // "at C4" / "in Ridge" as the page's language says it (data-where): "Ann moved, now at C4"
        lines.push(t("{name} moved, now {where}", { name: now.names.get(id), where }));
      }
    });
    if (now.acting && now.acting !== seen.acting) {
      const mine = now.mine.has(now.acting); // the player's own: "Your turn, Aria" (#61)
      lines.push(mine ? t("Your turn, {name}", { name: now.names.get(now.acting) })
                      : t("{name}'s turn", { name: now.names.get(now.acting) }));
    }
    if (now.attack && now.attack.seq > seen.attack && now.attack.text) lines.push(now.attack.text);
    remember(now);
    say(lines);
  });
})();
