"""Draw the home-screen icons of the web app manifest (static/icons/tacmap-192.png, -512.png).

The same picture as static/favicon.svg (a dark tile, a light 3 x 3 grid, a blue and a red token), drawn
with Pillow at each size (no SVG renderer needed), with the grid inside the maskable safe zone (the middle
80 %), so a launcher that crops the icon to a circle keeps all of it. Run: python3 scripts/draw_app_icons.py
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

ICONS = Path(__file__).resolve().parent.parent / "static" / "icons"
SIZES = (192, 512)
TILE, LINE, BLUE, RED = "#23262b", "#c9bfa9", "#2563eb", "#dc2626"


def draw(size: int) -> Image.Image:
    scale = 4  # drawn large, then shrunk: smooth edges without anti-aliasing primitives
    big = size * scale
    img = Image.new("RGB", (big, big), TILE)
    d = ImageDraw.Draw(img)
    unit = big / 32 * 0.8  # the favicon's 32-unit picture in the middle 80 %
    off = big * 0.1

    def at(v: float) -> float:
        return off + v * unit

    width = max(1, round(1.5 * unit))
    for v in (8, 16, 24):
        d.line([(at(8), at(v)), (at(24), at(v))], fill=LINE, width=width)
        d.line([(at(v), at(8)), (at(v), at(24))], fill=LINE, width=width)
    for (cx, cy), color in (((12, 12), BLUE), ((20, 20), RED)):
        r = 3.2 * unit
        d.ellipse([at(cx) - r, at(cy) - r, at(cx) + r, at(cy) + r], fill=color)
    return img.resize((size, size), Image.LANCZOS)


def main() -> None:
    ICONS.mkdir(parents=True, exist_ok=True)
    for size in SIZES:
        path = ICONS / f"tacmap-{size}.png"
        draw(size).save(path, optimize=True)
        print(path)


if __name__ == "__main__":
    main()
