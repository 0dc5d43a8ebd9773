// A player's board as a list (#61): the Map / List switch above the map (the choice remembered on this device), the
// list kept up to date while it is shown, and what its controls do. The server draws the list for this player
// (templates/_board_list.html, GET /games/<id>/board-list: only what their tokens see); a live update whose events
// change it brings a new #board-list-due mark, and the list is fetched again then, only while it is shown. A move
// goes the way a drop on the map goes (map.js: shown at once, pending, sent as move_token; a refusal springs it back
// with its reason); an Attack button fills the attack card (attack.js) with this token and that foe, previews the
// attack and puts the focus on "Roll attack". The focus and a picked destination stay across a fresh copy; a choice
// the rules want before a move (the 3d6 maneuver, offered in the list as in the turn bar) leaves the focus on the
// destinations it then allows (#70).
(function () {
  "use strict";
  const live = document.getElementById("live");
  const area = document.querySelector(".map-area");
  if (!live || !area || !document.getElementById("board-list")) return;
  const KEY = "tacmap-board-view";
  const url = "/games/" + live.dataset.game + "/board-list";
  const due = () => { const m = document.getElementById("board-list-due"); return m ? m.dataset.seq : ""; };
  let shown = false, fetchedAt = due(), busy = false;

  function stored() { try { return localStorage.getItem(KEY); } catch (e) { return null; } }
  function store(view) { try { localStorage.setItem(KEY, view); } catch (e) { /* private mode: not remembered */ } }

  function setView(view) {
    shown = view === "list";
    area.classList.toggle("as-list", shown);
    for (const b of area.querySelectorAll("[data-board-view]")) {
      b.setAttribute("aria-pressed", String(b.dataset.boardView === view));
    }
    const list = document.getElementById("board-list");
    if (list) list.hidden = !shown;
    if (shown && due() !== fetchedAt) refresh();
  }

  // the fresh copy in place of the old, the focus and a destination the player picked kept where they still are
  function swap(html) {
    const old = document.getElementById("board-list");
    const box = document.createElement("template");
    box.innerHTML = html.trim();
    const fresh = box.content.querySelector("#board-list");
    if (!old || !fresh) return;
    const active = document.activeElement;
    const focused = active && old.contains(active) ? active.id : null;
    const select = old.querySelector("#board-move-to");
    const picked = select && select._picked ? select.value : null;
    fresh.hidden = !shown;
    old.replaceWith(fresh);
    const twin = fresh.querySelector("#board-move-to");
    if (picked && twin && Array.from(twin.options).some((o) => o.value === picked)) {
      twin.value = picked;
      twin._picked = true;
    }
    if (focused) {
      // a choice of the turn made here (#70: the 3d6 maneuver) is gone from the fresh copy: the places it allows next
      const next = focused.startsWith("board-choose-") &&
        (document.getElementById("board-move-to") || fresh.querySelector("[data-board-choose]"));
      const again = document.getElementById(focused) || next || document.getElementById("board-list-title");
      if (again) again.focus({ preventScroll: true });
    }
  }

  // one fetch at a time; marks that came meanwhile fetch once more after it
  async function refresh() {
    if (busy) return;
    busy = true;
    const want = due();
    try {
      const r = await fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } });
      if (r.ok) { swap(await r.text()); fetchedAt = want; }
    } catch (e) {
      // the link is down: the next update (or the reconnection's fresh copy) fetches it again
    }
    busy = false;
    if (shown && due() !== fetchedAt) refresh();
  }

  // a replay shows a past moment: the list of the present goes while it lasts (it would name what the player sees
  // now beside a moment they did not see it), and is fetched again once the page is back at the table
  let replaying = false;
  document.addEventListener("tacmap:replay", (e) => {
    replaying = !!e.detail;
    const list = document.getElementById("board-list");
    if (replaying && list) { list.replaceChildren(); fetchedAt = null; }
    else if (!replaying && shown) refresh();
  });
  document.addEventListener("tacmap:update", () => { if (!replaying && shown && due() !== fetchedAt) refresh(); });

  document.addEventListener("click", (e) => {
    const button = e.target.closest && e.target.closest("[data-board-view]");
    if (button) {
      store(button.dataset.boardView);
      setView(button.dataset.boardView);
      return;
    }
    const attack = e.target.closest && e.target.closest("[data-board-attack]");
    if (attack) { aim(attack.dataset.attacker, attack.dataset.boardAttack); return; }
    // the turn bar's "Move" leads to the map: with the list shown, to the list's destinations
    const toMap = e.target.closest && e.target.closest('a[href="#map-frame"]');
    const where = document.getElementById("board-move-to");
    if (toMap && shown && where) { e.preventDefault(); where.focus(); }
  });

  document.addEventListener("change", (e) => { if (e.target.id === "board-move-to") e.target._picked = true; });

  document.addEventListener("submit", (e) => {
    const form = e.target.closest && e.target.closest("form[data-board-move]");
    if (!form || !window.tacmap) return;
    e.preventDefault();
    const id = form.elements.token_id.value, to = form.elements.to.value;
    if (!to) return;
    const cell = /^\d+,\d+$/.test(to) ? to.split(",").map(Number) : null;
    if (cell && window.tacmap.moveToken && document.getElementById("token-" + id)) window.tacmap.moveToken(id, cell);
    else if (cell) window.tacmap.command({ type: "move_token", token_id: id, x: cell[0], y: cell[1] });
    else window.tacmap.command({ type: "move_token", token_id: id, zone: to });
  });

  // the attack card with this attacker and this target (as if picked there), its preview asked, "Roll attack" next
  function aim(attackerId, targetId) {
    const form = document.getElementById("attack-form");
    if (!form) return;
    const attacker = form.elements.attacker, target = form.elements.target;
    if (Array.from(attacker.options).some((o) => o.value === attackerId) && attacker.value !== attackerId) {
      attacker.value = attackerId;
      attacker.dispatchEvent(new Event("change", { bubbles: true }));
    }
    attacker._picked = true;
    if (!Array.from(target.options).some((o) => o.value === targetId)) return;
    target.value = targetId;
    target.dispatchEvent(new Event("change", { bubbles: true }));
    target._picked = true;
    const preview = form.querySelector("[data-attack=preview_attack]");
    if (preview) preview.click();
    const roll = form.querySelector("[data-attack=attack]");
    if (roll) {
      roll.scrollIntoView({ block: "center" });
      roll.focus({ preventScroll: true });
    }
  }

  setView(stored() === "list" ? "list" : "map");
})();
