// The GM's panel: place a new token by clicking the map, and switches that
// apply at once (a token's "hidden", letting players take their seat back).
// The map is map.js's; this only listens to clicks on its SVG while placing.
(function () {
  "use strict";
  if (!document.body.classList.contains("gm-view")) return;

  function mapSvg() {
    const m = document.getElementById("map");
    if (!m) return null;
    return m.tagName.toLowerCase() === "svg" ? m : m.querySelector("svg");
  }

  function cellAt(evt) {
    const svg = mapSvg();
    const pt = svg.createSVGPoint();
    pt.x = evt.clientX;
    pt.y = evt.clientY;
    const p = pt.matrixTransform(svg.getScreenCTM().inverse());
    const g = window.tacgrid && window.tacgrid.of(svg); // on hexes: the hex under the click (grid.js)
    if (g && g.hex) return g.cellAt(g.toMap([p.x, p.y]));
    return [Math.floor(p.x), Math.floor(p.y)];
  }

  // --- placing a token with a click ------------------------------------------
  let placing = false;
  const form = () => document.getElementById("add-token");

  function setPlacing(on) {
    placing = on;
    document.body.classList.toggle("placing", on);
    const f = form();
    if (!f) return;
    const button = f.querySelector("#place-token");
    const hint = f.querySelector("#place-hint");
    if (button) {
      button.setAttribute("aria-pressed", on ? "true" : "false");
      button.textContent = on ? t("Cancel placing") : t("Place on the map");
    }
    if (hint) {
      hint.hidden = !on;
      const name = hint.querySelector(".place-name");
      if (name) name.textContent = f.elements.name.value.trim();
    }
  }

  document.addEventListener("click", (e) => {
    const button = e.target.closest && e.target.closest("#place-token");
    if (!button) return;
    const f = form();
    if (placing) { setPlacing(false); return; }
    if (!f.elements.name.value.trim()) {
      f.elements.name.reportValidity();
      f.elements.name.focus();
      return;
    }
    setPlacing(true);
  });

  // capture: while placing, a click on the map is the place, not a door or a token
  document.addEventListener("click", (e) => {
    if (!placing) return;
    const svg = mapSvg();
    if (!svg || !svg.contains(e.target)) return;
    e.preventDefault();
    e.stopPropagation();
    placeAt(e);
  }, true);

  function placeAt(e) {
    const svg = mapSvg();
    const [x, y] = cellAt(e);
    const width = parseInt(svg.dataset.width, 10), height = parseInt(svg.dataset.height, 10);
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    const f = form();
    f.elements.x.value = String(x);
    f.elements.y.value = String(y);
    setPlacing(false);
    f.requestSubmit();
  }

  // or drag the button onto the map (a mouse on the GM's laptop)
  let carrying = false;
  document.addEventListener("dragstart", (e) => {
    if (!(e.target.closest && e.target.closest("#place-token"))) return;
    const f = form();
    if (!f.elements.name.value.trim()) {
      e.preventDefault();
      f.elements.name.reportValidity();
      return;
    }
    carrying = true;
    e.dataTransfer.setData("text/plain", f.elements.name.value.trim());
    e.dataTransfer.effectAllowed = "copy";
  });
  document.addEventListener("dragend", () => { carrying = false; });
  document.addEventListener("dragover", (e) => {
    const svg = mapSvg();
    if (carrying && svg && svg.contains(e.target)) e.preventDefault();
  });
  document.addEventListener("drop", (e) => {
    const svg = mapSvg();
    if (!carrying || !svg || !svg.contains(e.target)) return;
    e.preventDefault();
    carrying = false;
    placeAt(e);
  });

  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && placing) setPlacing(false);
  });
  // the form may be re-drawn by a live update: keep the button's words true
  document.addEventListener("tacmap:update", () => { if (placing) setPlacing(true); });

  // --- switches that apply at once ---------------------------------------------
  document.addEventListener("change", (e) => {
    const box = e.target;
    if (!box.matches || !box.matches("input[type=checkbox][data-command]") || !window.tacmap) return;
    const payload = Object.assign(JSON.parse(box.dataset.command), { [box.dataset.field]: box.checked });
    window.tacmap.command(payload).then((ack) => {
      if (ack.ok) {
        box.defaultChecked = box.checked; // it is the server's value now
      } else {
        box.checked = box.defaultChecked;
      }
      window.tacmap.settle(box, false);
    });
  });
})();
