// The map's grid for the scripts (#28): squares, or hexes with pointy or flat tops. A faithful port of
// rules/grid.py's centre / cell_at / corners / length (and the few helpers drawing needs), plus the
// drawing units of webapp/live/screens/drawing.py: map units stretched by the grid's unit, so a hex is round.
// The map root says which grid it is: <svg id="map" data-grid="hex" data-orientation="pointy">.
(function () {
  "use strict";
  const STRETCH = 2 / Math.sqrt(3); // a hex's corner-to-corner height over its flat-to-flat width
  const CUBE_STEPS = [[1, 0, -1], [0, 1, -1], [-1, 1, 0], [-1, 0, 1], [0, -1, 1], [1, -1, 0]];

  function make(kind, orientation) {
    const hex = kind === "hex";
    const pointy = hex && orientation !== "flat";
    const unit = !hex ? [1, 1] : pointy ? [1, STRETCH] : [STRETCH, 1];
    const g = { kind: hex ? "hex" : "square", orientation: hex ? (pointy ? "pointy" : "flat") : null,
                hex: hex, pointy: pointy, unit: unit };

    g.length = (dx, dy) => Math.hypot(dx * unit[0], dy * unit[1]);
    // the size, in map units, of a board width x height cells (rules/grid.py Grid.extent)
    g.extent = (w, h) => (!hex ? [w, h] : pointy ? [w + (h > 1 ? 0.5 : 0), 0.75 * h + 0.25]
      : [0.75 * w + 0.25, h + (w > 1 ? 0.5 : 0)]);
    // map units <-> drawing units (the SVG's user space)
    g.toDraw = (p) => [p[0] * unit[0], p[1] * unit[1]];
    g.toMap = (p) => [p[0] / unit[0], p[1] / unit[1]];

    g.centre = (cell) => {
      const [x, y] = cell;
      if (!hex) return [x + 0.5, y + 0.5];
      if (pointy) return [x + 0.5 + 0.5 * (y & 1), 0.5 + 0.75 * y];
      return [0.5 + 0.75 * x, y + 0.5 + 0.5 * (x & 1)];
    };
    g.corners = (cell) => {
      const [cx, cy] = g.centre(cell);
      if (!hex) return [[cx - 0.5, cy - 0.5], [cx + 0.5, cy - 0.5], [cx + 0.5, cy + 0.5], [cx - 0.5, cy + 0.5]];
      if (pointy) {
        return [[cx, cy - 0.5], [cx + 0.5, cy - 0.25], [cx + 0.5, cy + 0.25], [cx, cy + 0.5],
                [cx - 0.5, cy + 0.25], [cx - 0.5, cy - 0.25]];
      }
      return [[cx - 0.25, cy - 0.5], [cx + 0.25, cy - 0.5], [cx + 0.5, cy], [cx + 0.25, cy + 0.5],
              [cx - 0.25, cy + 0.5], [cx - 0.5, cy]];
    };
    // the cell a point in map units lies in: the nearest centre, by true length, round a first guess
    g.cellAt = (point) => {
      const [px, py] = point;
      if (!hex) return [Math.floor(px), Math.floor(py)];
      let gx, gy;
      if (pointy) {
        gy = Math.floor((py - 0.5) / 0.75 + 0.5);
        gx = Math.floor(px - 0.5 * (gy & 1));
      } else {
        gx = Math.floor((px - 0.5) / 0.75 + 0.5);
        gy = Math.floor(py - 0.5 * (gx & 1));
      }
      let best = [gx, gy], low = Infinity;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const c = [gx + dx, gy + dy];
          const [cx, cy] = g.centre(c);
          const d = g.length(px - cx, py - cy);
          if (d < low - 1e-12) { best = c; low = d; }
        }
      }
      return best;
    };
    g.cube = (cell) => {
      const [x, y] = cell;
      let q, r;
      if (pointy) { q = x - (y - (y & 1)) / 2; r = y; } else { q = x; r = y - (x - (x & 1)) / 2; }
      return [q, r, -q - r];
    };
    g.fromCube = (c) => {
      const [q, r] = c;
      return pointy ? [q + (r - (r & 1)) / 2, r] : [q, r + (q - (q & 1)) / 2];
    };
    g.neighbours = (cell) => {
      const [x, y] = cell;
      if (!hex) return [[1, 0], [0, 1], [-1, 0], [0, -1], [1, 1], [-1, 1], [-1, -1], [1, -1]].map(([a, b]) => [x + a, y + b]);
      const [q, r, s] = g.cube(cell);
      return CUBE_STEPS.map(([a, b, c]) => g.fromCube([q + a, r + b, s + c]));
    };
    g.steps = (a, b) => {
      if (!hex) return Math.max(Math.abs(a[0] - b[0]), Math.abs(a[1] - b[1]));
      const [qa, ra, sa] = g.cube(a), [qb, rb, sb] = g.cube(b);
      return Math.max(Math.abs(qa - qb), Math.abs(ra - rb), Math.abs(sa - sb));
    };
    // the cells a token of size covers: squares size x size from its top-left; hexes 1, 3 or 7
    g.footprint = (cell, size) => {
      const [x, y] = cell;
      size = size || 1;
      if (!hex) {
        const out = [];
        for (let j = 0; j < size; j++) for (let i = 0; i < size; i++) out.push([x + i, y + j]);
        return out;
      }
      if (size <= 1) return [[x, y]];
      const n = g.neighbours(cell);
      return size === 2 ? [[x, y], n[0], n[1]] : [[x, y], ...n];
    };

    // --- drawing units -------------------------------------------------------------------
    // the centre of a token's cells, and the top-left of its size x size box (webapp/live/screens/drawing.py)
    g.drawCentre = (cell, size) => {
      size = size || 1;
      if (!hex) return [cell[0] + size / 2, cell[1] + size / 2];
      const cs = g.footprint(cell, Math.min(size, 3)).map(g.centre);
      return g.toDraw([cs.reduce((s, c) => s + c[0], 0) / cs.length, cs.reduce((s, c) => s + c[1], 0) / cs.length]);
    };
    g.box = (cell, size) => {
      if (!hex) return [cell[0], cell[1]];
      const [cx, cy] = g.drawCentre(cell, size);
      size = size || 1;
      return [Math.round((cx - size / 2) * 1e4) / 1e4, Math.round((cy - size / 2) * 1e4) / 1e4];
    };
    // the anchor cell of a token of size whose drawn centre is nearest a point in drawing units
    g.anchorAt = (p, size) => {
      size = size || 1;
      if (!hex) return [Math.round(p[0] - size / 2), Math.round(p[1] - size / 2)];
      const [ox, oy] = g.drawCentre([0, 0], size), [ax, ay] = g.toDraw(g.centre([0, 0]));
      return g.cellAt(g.toMap([p[0] - (ox - ax), p[1] - (oy - ay)]));
    };
    // whether every cell of a token of size anchored there is on a width x height board
    g.fits = (cell, size, width, height) => g.footprint(cell, size)
      .every(([x, y]) => x >= 0 && y >= 0 && x < width && y < height);
    // a cell's outline as SVG polygon points in drawing units; inset: shrunk towards its centre by that share
    g.points = (cell, inset) => {
      const [cx, cy] = g.centre(cell);
      const k = inset || 0;
      return g.corners(cell).map(([x, y]) => g.toDraw([x + (cx - x) * k, y + (cy - y) * k]))
        .map(([x, y]) => +x.toFixed(4) + "," + +y.toFixed(4)).join(" ");
    };
    // the nearest grid corner to a point in map units (hexes: a hex corner; squares: a square's corner)
    g.cornerAt = (point) => {
      if (!hex) return [Math.round(point[0]), Math.round(point[1])];
      const cell = g.cellAt(point);
      let best = null, low = Infinity;
      for (const c of g.corners(cell)) {
        const d = g.length(point[0] - c[0], point[1] - c[1]);
        if (d < low) { best = c; low = d; }
      }
      return best;
    };
    return g;
  }

  const SQUARE = make("square");
  // the grid of the map on the page (or of an element's own map root)
  function of(svg) {
    svg = svg || document.getElementById("map");
    if (!svg || svg.dataset.grid !== "hex") return SQUARE;
    return make("hex", svg.dataset.orientation);
  }
  window.tacgrid = { of: of, make: make, SQUARE: SQUARE };
})();
