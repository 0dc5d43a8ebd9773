// The attack card: preview an attack (its line on the map, its odds), then roll it.
// The server decides everything; this only sends the choice and shows the answer.
(function () {
  "use strict";
  const SVG_NS = "http://www.w3.org/2000/svg";

  function aimLayer() {
    const svg = document.getElementById("map");
    if (!svg) return null;
    let layer = document.getElementById("layer-aim");
    if (!layer) {
      layer = document.createElementNS(SVG_NS, "g");
      layer.id = "layer-aim";
      svg.appendChild(layer);
    }
    return layer;
  }

  function clearAim() {
    const layer = document.getElementById("layer-aim");
    if (layer) layer.replaceChildren();
    const box = document.getElementById("attack-preview");
    if (box) box.replaceChildren();
  }

  function show(html) {
    const box = document.getElementById("attack-preview");
    if (!box) return;
    box.innerHTML = html; // rendered and escaped by the server
    const p = box.querySelector(".attack-preview");
    const layer = aimLayer();
    if (!p || !layer) return;
    // from the centre of the attacker's cell to the target's (on hexes, hex centres: grid.js)
    const g = window.tacgrid.of(document.getElementById("map"));
    const mid = (x, y) => g.toDraw(g.centre([x, y]));
    const [x1, y1] = mid(...p.dataset.from.split(",").map(Number));
    const [x2, y2] = mid(...p.dataset.to.split(",").map(Number));
    const line = document.createElementNS(SVG_NS, "line");
    line.setAttribute("x1", x1); line.setAttribute("y1", y1);
    line.setAttribute("x2", x2); line.setAttribute("y2", y2);
    line.setAttribute("class", "aim-line " + (p.dataset.clear === "yes" ? "clear" : "blocked"));
    layer.replaceChildren(line);
    // a multi-target attack: a line to each further target
    for (const aim of JSON.parse(p.dataset.aims || "[]")) {
      const more = document.createElementNS(SVG_NS, "line");
      const [ax, ay] = mid(aim.to[0], aim.to[1]);
      more.setAttribute("x1", x1); more.setAttribute("y1", y1);
      more.setAttribute("x2", ax); more.setAttribute("y2", ay);
      more.setAttribute("class", "aim-line " + (aim.clear ? "clear" : "blocked"));
      layer.appendChild(more);
    }
    // an area attack: the squares the rules' template covers, as aimed
    for (const [x, y] of JSON.parse(p.dataset.cells || "[]")) {
      const r = document.createElementNS(SVG_NS, g.hex ? "polygon" : "rect");
      if (g.hex) r.setAttribute("points", g.points([x, y]));
      else { r.setAttribute("x", x); r.setAttribute("y", y); r.setAttribute("width", 1); r.setAttribute("height", 1); }
      r.setAttribute("class", "aim-cell");
      layer.appendChild(r);
    }
  }

  function syncWeapons(form) {
    const attacker = form.elements.attacker.value;
    const select = form.elements.weapon;
    let first = null;
    for (const opt of select.options) {
      const mine = opt.dataset.attacker === attacker;
      opt.hidden = !mine;
      opt.disabled = !mine;
      if (mine && !first) first = opt;
    }
    // by the option, not its value: two attackers may both have an "Unarmed"
    if (select.selectedOptions[0] && select.selectedOptions[0].disabled) {
      if (first) first.selected = true; else select.value = "";
    }
    if (!first) select.value = "";
  }

  // The target an attacker's list starts on: its nearest foe, as webapp/game/fight/combat.first_foe picks it (a token of
  // the other side, one in the fight, the nearest, the list's first of equals), worked out now from the squares the
  // map shows: a move does not draw the card again (#58), the token it moved comes with its new data-x, data-y. The
  // card says each token's side (data-kind) and who is out of the fight (data-out). Null: no foe stands. A token the
  // map does not show (the GM prepares another map): the card's own hint, as drawn (data-aim).
  function nearestFoe(form, option) {
    const hint = option.dataset.aim || null;
    const at = new Map();
    for (const el of document.querySelectorAll("#map g.token[data-token-id]")) {
      at.set(el.dataset.tokenId, [parseInt(el.dataset.x, 10), parseInt(el.dataset.y, 10)]);
    }
    const me = at.get(option.value);
    if (!me || !option.dataset.kind) return hint;
    const listed = Array.from(form.elements.target.options).filter((o) => o.value && o.dataset.kind);
    let best = null, nearest = Infinity;
    for (const o of listed) {
      if (o.value === option.value || o.dataset.kind === option.dataset.kind || "out" in o.dataset) continue;
      const there = at.get(o.value);
      if (!there) return hint;
      const d = (there[0] - me[0]) ** 2 + (there[1] - me[1]) ** 2;
      if (d < nearest) { best = o.value; nearest = d; }
    }
    if (best || listed.some((o) => o.dataset.kind !== option.dataset.kind)) return best; // foes, none standing: null
    const other = listed.find((o) => o.value !== option.value); // no foe at all: the first other token
    return other ? other.value : null;
  }
  // the target list on that foe; with none, on no one (never an ally: "Choose a target first" if sent)
  function aimAt(form, option) {
    const target = form.elements.target;
    const aim = option ? nearestFoe(form, option) : null;
    if (aim && Array.from(target.options).some((o) => o.value === aim)) target.value = aim;
    else if (target.querySelector('option[value=""]')) target.value = "";
    else target.selectedIndex = -1;
    return !!aim;
  }

  // the rules' options for this attack, as picked in the preview (enabled controls only: the GM's copy
  // of a player's preview is read-only), and the further targets of a multi-target attack
  function picked() {
    const options = {};
    const targets = [];
    const box = document.getElementById("attack-preview");
    if (!box) return { options, targets };
    for (const el of box.querySelectorAll("[data-option]")) {
      if (el.matches(":disabled")) continue;
      const kind = el.dataset.kind;
      if (kind === "bool") options[el.dataset.option] = el.checked;
      else if (kind === "int") { if (el.value !== "") options[el.dataset.option] = parseInt(el.value, 10); }
      else if (el.value !== "") options[el.dataset.option] = el.value;
    }
    for (const el of box.querySelectorAll("[data-extra-target]")) {
      if (!el.matches(":disabled") && el.value && !targets.includes(el.value)) targets.push(el.value);
    }
    return { options, targets };
  }

  function payloadOf(form, kind) {
    const payload = { type: kind, attacker: form.elements.attacker.value, target: form.elements.target.value };
    if (form.elements.weapon.value) payload.weapon = form.elements.weapon.value;
    if (form.elements.force && form.elements.force.checked) payload.force = true;
    if (form.elements.template && form.elements.template.value) payload.template = form.elements.template.value;
    const { options, targets } = picked();
    if (Object.keys(options).length) payload.options = options;
    if (targets.length) payload.targets = [payload.target, ...targets.filter((t) => t !== payload.target)];
    return payload;
  }

  async function send(form, kind) {
    const payload = payloadOf(form, kind);
    // no target picked (none is, when no foe stands: webapp/game/fight/combat.first_foe): nothing is sent
    if (!payload.target) { window.tacmap.flash(t("Choose a target first.")); return; }
    // a defense ticked in the preview (the GM's, or the defender's own player's)
    const defense = kind === "attack" && document.querySelector("#attack-preview input[name=defense-choice]:checked");
    if (defense) payload.defense = defense.value;
    const ack = await window.tacmap.command(payload);
    if (!ack.ok) return;
    if (kind === "preview_attack") show(ack.html);
    else clearAim();
  }

  document.addEventListener("change", (e) => {
    const form = e.target.closest("#attack-form");
    if (form) {
      if (e.target.name === "attacker") {
        syncWeapons(form);
        // the new attacker's nearest foe, where the tokens stand now, never its ally
        if (aimAt(form, e.target.selectedOptions[0])) form.elements.target._picked = true;
      }
      // another attacker, target, weapon or template: the options shown were for the old one
      if (["attacker", "target", "weapon", "template"].includes(e.target.name)) clearAim();
      return;
    }
    // an option or a further target changed: the odds again, with it
    if (e.target.closest("#attack-preview") && e.target.closest("[data-option], [data-extra-target]")) {
      const card = document.getElementById("attack-form");
      if (card && window.tacmap) send(card, "preview_attack");
    }
  });
  // an attack rolled since the preview was drawn (by anyone: the GM sees players' previews)
  // makes it stale: the aim line and the odds go
  const newestAttack = () => {
    const li = document.querySelector("#log li.attack");
    return li ? li.dataset.seq : null;
  };
  let lastAttack = newestAttack();
  // the card starts on the token whose turn it is (when it is this user's) and its nearest foe: a turn that
  // passes moves the attacker along unless the user picked one, and the target follows the attacker's nearest
  // foe as tokens move until the user picks one (picking an attacker picks its nearest foe of the moment)
  function followTurn(form) {
    const now = document.querySelector("#combat .turn-order li.current");
    const attacker = form.elements.attacker, target = form.elements.target;
    const before = [attacker.value, target.value];
    const option = now && !attacker._picked && Array.from(attacker.options).find((o) => o.value === now.dataset.tokenId);
    if (option && attacker.value !== option.value) {
      attacker.value = option.value;
      syncWeapons(form);
    }
    if (!target._picked) aimAt(form, attacker.selectedOptions[0]);
    if (attacker.value !== before[0] || target.value !== before[1]) clearAim();
  }
  document.addEventListener("tacmap:update", () => {
    const form = document.getElementById("attack-form");
    if (form) { syncWeapons(form); followTurn(form); }
    const now = newestAttack();
    if (now !== lastAttack) { lastAttack = now; clearAim(); }
    // the card drawn afresh (a fight begun, a turn, a token out) has no preview: nor has the map its line
    const box = document.getElementById("attack-preview"), layer = document.getElementById("layer-aim");
    if (box && layer && !box.firstElementChild) layer.replaceChildren();
  });
  const initial = document.getElementById("attack-form");
  if (initial) syncWeapons(initial);

  document.addEventListener("click", async (e) => {
    // the card's own buttons (the defense prompt carries its attack's id in a data-attack of its own: a tap on a
    // defense choice was sent here with no form, a TypeError on every tap, #70)
    const button = e.target.closest("button[data-attack]");
    const form = button && button.closest("#attack-form");
    if (!form || !window.tacmap) return;
    const kind = button.dataset.attack;
    if (kind === "clear") return clearAim();
    await send(form, kind);
  });

  if (window.tacmap && window.tacmap.socket) {
    // the GM sees a player's attack drawn before it is rolled
    window.tacmap.socket.on("attack_preview", (msg) => show(msg.html));
  }
})();
