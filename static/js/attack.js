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
    // no target picked (none is, when no foe stands: webapp/game/combat.first_foe): nothing is sent
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
        // the new attacker's nearest foe (the server's rule, webapp/game/combat.first_foe), never its ally
        const aim = e.target.selectedOptions[0] && e.target.selectedOptions[0].dataset.aim;
        if (aim) { form.elements.target.value = aim; form.elements.target._picked = true; }
        else if (form.elements.target.querySelector('option[value=""]')) form.elements.target.value = "";
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
  // passes moves it along, unless the user picked an attacker (or a target) on it
  function followTurn(form) {
    const now = document.querySelector("#combat .turn-order li.current");
    const attacker = form.elements.attacker;
    if (!now || attacker._picked || attacker.value === now.dataset.tokenId) return;
    const option = Array.from(attacker.options).find((o) => o.value === now.dataset.tokenId);
    if (!option) return;
    attacker.value = option.value;
    syncWeapons(form);
    if (!form.elements.target._picked) {
      if (option.dataset.aim) form.elements.target.value = option.dataset.aim;
      else if (form.elements.target.querySelector('option[value=""]')) form.elements.target.value = "";
    }
    clearAim();
  }
  document.addEventListener("tacmap:update", () => {
    const form = document.getElementById("attack-form");
    if (form) { syncWeapons(form); followTurn(form); }
    const now = newestAttack();
    if (now !== lastAttack) { lastAttack = now; clearAim(); }
  });
  const initial = document.getElementById("attack-form");
  if (initial) syncWeapons(initial);

  document.addEventListener("click", async (e) => {
    const button = e.target.closest("[data-attack]");
    if (!button || !window.tacmap) return;
    const form = button.closest("#attack-form");
    const kind = button.dataset.attack;
    if (kind === "clear") return clearAim();
    await send(form, kind);
  });

  if (window.tacmap && window.tacmap.socket) {
    // the GM sees a player's attack drawn before it is rolled
    window.tacmap.socket.on("attack_preview", (msg) => show(msg.html));
  }
})();
