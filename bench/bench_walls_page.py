"""Benchmark of the biggest map's walls in a browser (#69): how long Chromium takes to apply and paint them, and to
redraw a zoom, as the pages draw them (``Drawing.wall_paths``: the walls starting in one 32 x 32 tile in one
``<path>``) against one ``<line class="wall" data-wall-id>`` a wall (how the pages drew them before, written here).

The walls: ``bench_big_maps.worst_map``'s (300 x 300 squares, 40,000 short walls in a band along the west edge),
as a screen gets them (no ids) and as the GM's page does (their ids for the eraser). Each form is set as the
``innerHTML`` of a ``<g>`` in an ``<svg>`` of the map's size (1,200 px square, the pages' wall style), timed until
two animation frames have passed (applied, laid out and painted); then the ``viewBox`` is changed seven times (a
zoom) and each redraw timed the same way (the median is shown). Each form ``rounds`` times in a fresh page, the
median shown; at full speed and with the CPU slowed 4x (Chromium's throttling: about a phone's).

Debian's Chromium (``/usr/bin/chromium``) through Playwright, as the browser tests run it; not part of the test run.
Run: ``python3 -m bench.bench_walls_page [rounds]`` from the repository root.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_big_maps import worst_map  # noqa: E402
from webapp.live.screens.drawing import Drawing  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
PAGE = """<html><body><style>.wall { stroke: #333; stroke-width: 0.14; stroke-linecap: round; fill: none; }</style>
<svg id="map" viewBox="0 0 {side} {side}" width="1200" height="1200"><g id="layer-walls"></g></svg></body></html>"""
APPLY = """(markup) => new Promise((done) => { const t0 = performance.now();
  document.getElementById('layer-walls').innerHTML = markup;
  requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - t0))); })"""
ZOOM = """(box) => new Promise((done) => { const t0 = performance.now();
  document.getElementById('map').setAttribute('viewBox', box);
  requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - t0))); })"""


def forms() -> tuple[int, int, dict[str, str]]:
    """The map's side, its walls' number and each form's markup: lines (before), paths (a screen's), paths with
    their ids (the GM's)."""
    m = worst_map("square")
    walls = [{"id": f"wall-{i + 1}", "a": w["a"], "b": w["b"]} for i, w in enumerate(m["walls"])]
    lines = "".join(f'<line class="wall" data-wall-id="{w["id"]}" x1="{w["a"][0]}" y1="{w["a"][1]}" '
                    f'x2="{w["b"][0]}" y2="{w["b"][1]}"/>' for w in walls)
    drawing = Drawing()
    return m["width"], len(walls), {"lines": lines, "paths": str(drawing.wall_paths(walls)),
                                    "paths, GM's (ids)": str(drawing.wall_paths(walls, ids=True))}


def measure(rounds: int = 3, throttles=(1, 4)) -> dict:
    """``{(throttle, form): {"apply": median ms, "zoom": median ms, "bytes": n}}``, with ``side`` and ``walls``."""
    from playwright.sync_api import sync_playwright

    side, n, markup = forms()
    out: dict = {"side": side, "walls": n, "figures": {}}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            for throttle in throttles:
                times: dict[str, tuple[list, list]] = {form: ([], []) for form in markup}
                for _ in range(rounds):
                    for form, html in markup.items():  # (the forms in turn: the machine's moods shared)
                        page = browser.new_page()
                        page.set_content(PAGE.replace("{side}", str(side)))
                        page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": throttle})
                        times[form][0].append(page.evaluate(APPLY, html))
                        zooms = [page.evaluate(ZOOM, f"{k} {k} {side - 40 * k} {side - 40 * k}") for k in range(1, 8)]
                        times[form][1].append(statistics.median(zooms))
                        page.close()
                for form, (apply, zoom) in times.items():
                    out["figures"][(throttle, form)] = {"apply": statistics.median(apply),
                                                        "zoom": statistics.median(zoom),
                                                        "bytes": len(markup[form].encode())}
        finally:
            browser.close()
    return out


def rows(found: dict) -> list[tuple[str, float, float | None, str]]:
    """(figure, ms, the lines' ms in the same run or None, bytes) for each throttle and form of paths."""
    out = []
    for (throttle, form), f in found["figures"].items():
        if form == "lines":
            continue
        ref = found["figures"][(throttle, "lines")]
        cpu = "full speed" if throttle == 1 else f"CPU slowed {throttle}x"
        for what in ("apply", "zoom"):
            label = "applied and painted" if what == "apply" else "a zoom redrawn (median of 7)"
            out.append((f"{form}, {cpu}: {label} ({f['bytes'] / 1e6:.2f} MB; lines {ref['bytes'] / 1e6:.2f} MB)",
                        f[what], ref[what]))
    return out


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    found = measure(rounds)
    print(f"the biggest map's walls in Chromium: {found['side']} x {found['side']} squares, {found['walls']:,} walls; "
          f"median of {rounds} pages each")
    print(f"{'figure':86s} {'ms':>8s} {'lines ms':>9s} {'ratio':>7s}")
    for name, ms, ref in rows(found):
        print(f"{name:86s} {ms:8.1f} {ref:9.1f} {ms / ref:6.2f}x")


if __name__ == "__main__":
    main()
