// While your token is picked up: the squares it can reach now shaded (in a fight, within
// what the rules leave it this turn), and a ruler by the token with the cost of the way
// to the square under it, in the game's units. The server answers; this only draws.
(function () {
  "use strict";
  const SVG_NS = "http://www.w3.org/2000/svg";
  let reach = null; // {id, left, unit, size, costs: Map "x,y" -> cost}
  // the drag in hand: {id, cell} (the cell it is over now). The server's answer may come after the pointer has
  // stopped (a busy server, a slow Wi-Fi): it draws the ruler for where the token is then, and an answer that comes
  // after the drop draws nothing (#71)
  let held = null;
  const grid = () => window.tacgrid.of(document.getElementById("map")); // squares or hexes (grid.js)

  function layer() {
    const svg = document.getElementById("map");
    if (!svg) return null;
    let g = document.getElementById("layer-reach");
    if (!g) {
      g = document.createElementNS(SVG_NS, "g");
      g.id = "layer-reach";
      const tokens = document.getElementById("layer-tokens");
      svg.insertBefore(g, tokens || null);
    }
    return g;
  }

  function clear() {
    reach = null;
    const g = document.getElementById("layer-reach");
    if (g) g.replaceChildren();
  }

  // as the server writes it (webapp/game/core/text.py measure), in the page's language (i18n.js): 5 yards, 1 square,
  // a square system's squares on a hex map are hexes (#58); a sign sticks to the number, 5"
  function units(cost) {
    const n = Math.round(cost * reach.size * 10) / 10;
    const unit = reach.unit === "square" && grid().hex ? "hex" : reach.unit;
    if (!/^[\p{L} ]+$/u.test(unit)) return tnum(n) + unit; // a sign; a unit of words ("zone step") is written out
    const count = n === 1 ? 1 : n !== Math.floor(n) ? 2 : n, said = { n: tnum(n) };
    switch (unit) {
      case "yard": return tn("{n} yard", "{n} yards", count, said);
      case "square": return tn("{n} square", "{n} squares", count, said);
      case "hex": return tn("{n} hex", "{n} hexes", count, said);
      case "zone": return tn("{n} zone", "{n} zones", count, said);
      default: return tnum(n) + " " + unit + (n === 1 || unit.length <= 2 ? "" : "s");
    }
  }

  function ruler(cell) {
    const g = layer();
    if (!g || !reach) return;
    let label = document.getElementById("reach-ruler");
    if (!label) {
      label = document.createElementNS(SVG_NS, "text");
      label.id = "reach-ruler";
      g.appendChild(label);
    }
    const cost = reach.costs.get(cell[0] + "," + cell[1]);
    const hexes = grid();
    if (hexes.hex) { // above the hex the token's centre is over
      const [cx, cy] = hexes.drawCentre(cell, reach.tokenSize);
      label.setAttribute("x", cx);
      label.setAttribute("y", cy - reach.tokenSize / 2 - 0.25);
    } else {
      label.setAttribute("x", cell[0] + 0.5);
      label.setAttribute("y", cell[1] - 0.25);
    }
    if (cost === undefined) {
      label.textContent = reach.left === null ? t("no way there") : t("too far");
      label.setAttribute("class", "reach-ruler out");
    } else {
      label.textContent = reach.left === null ? units(cost)
        : t("{cost} of {left}", { cost: units(cost), left: units(reach.left) }); // "3 squares of 6 squares"
      label.setAttribute("class", "reach-ruler");
    }
    // kept inside the map (a token by the edge: its ruler is not cut off)
    const box = document.getElementById("map").viewBox.baseVal, b = label.getBBox();
    const shift = b.x < box.x ? box.x - b.x : b.x + b.width > box.x + box.width ? box.x + box.width - b.x - b.width : 0;
    if (shift) label.setAttribute("x", parseFloat(label.getAttribute("x")) + shift);
  }

  document.addEventListener("tacmap:dragstart", async (e) => {
    clear();
    if (!window.tacmap) return;
    const id = e.detail.id, drag = { id: id, cell: e.detail.from };
    held = drag;
    const ack = await window.tacmap.command({ type: "reach", token_id: id });
    if (!ack.ok || held !== drag) return; // refused, or dropped (or another picked up) before the answer came
    const g = layer();
    reach = { id: id, left: ack.left, unit: ack.unit, size: ack.cell_size, tokenSize: ack.size || 1, costs: new Map() };
    const frag = document.createDocumentFragment();
    // a big token's cells are where its anchor can go (its top-left square; on hexes its first hex):
    // shade every cell it would cover
    const size = ack.size || 1, shaded = new Set(), cells = grid();
    for (const [x, y, cost] of ack.cells) {
      reach.costs.set(x + "," + y, cost);
      if (ack.left === null) continue; // outside a fight only the ruler: every square is "reachable"
      for (const [cx, cy] of cells.footprint([x, y], size)) {
        const key = cx + "," + cy;
        if (shaded.has(key)) continue;
        shaded.add(key);
        let r;
        if (cells.hex) {
          r = document.createElementNS(SVG_NS, "polygon");
          r.setAttribute("points", cells.points([cx, cy]));
        } else {
          r = document.createElementNS(SVG_NS, "rect");
          r.setAttribute("x", cx); r.setAttribute("y", cy); r.setAttribute("width", 1); r.setAttribute("height", 1);
        }
        r.setAttribute("class", "reach-cell");
        r.dataset.cell = key;
        frag.appendChild(r);
      }
    }
    g.replaceChildren(frag);
    if (drag.cell[0] !== e.detail.from[0] || drag.cell[1] !== e.detail.from[1]) ruler(drag.cell);
  });
  document.addEventListener("tacmap:dragcell", (e) => {
    if (held && held.id === e.detail.id) held.cell = e.detail.cell;
    if (reach && reach.id === e.detail.id) ruler(e.detail.cell);
  });
  document.addEventListener("tacmap:dragend", (e) => {
    if (held && held.id === e.detail.id) held = null;
    clear();
  });
})();
