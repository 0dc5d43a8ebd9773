"""Draw the demo's token pictures (#27): simple faces, drawn here with Pillow, nothing downloaded.

    python3 scripts/draw_demo_pictures.py      # writes static/demo/*.png

The PNGs are committed; webapp/demo.py gives them to the demo's tokens. Each is drawn at four times its
size and scaled down, so the edges are smooth.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parents[1] / "static" / "demo"
SIZE = 256
K = 4  # drawn at K times the size


def canvas(background: str) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    img = Image.new("RGB", (SIZE * K, SIZE * K), background)
    return img, ImageDraw.Draw(img)


def box(x0, y0, x1, y1):
    return [round(v * K) for v in (x0, y0, x1, y1)]


def eyes(d, y, spread, size, color="#1b1b1b", white="#ffffff"):
    for cx in (128 - spread, 128 + spread):
        d.ellipse(box(cx - size * 1.6, y - size * 1.2, cx + size * 1.6, y + size * 1.2), fill=white)
        d.ellipse(box(cx - size, y - size, cx + size, y + size), fill=color)


def aria():  # a fighter: blue field, helmet, fair face
    img, d = canvas("#2f5fd0")
    d.rectangle(box(0, 190, 256, 256), fill="#8a96a8")  # shoulders in mail
    d.ellipse(box(70, 60, 186, 196), fill="#f1c9a5")  # face
    d.chord(box(60, 34, 196, 150), 180, 360, fill="#b8c2cf", outline="#5b6677", width=4 * K)  # helmet
    d.rectangle(box(120, 60, 136, 118), fill="#9aa5b4")  # nose guard
    eyes(d, 128, 24, 6, "#27408b")
    d.arc(box(106, 150, 150, 172), 20, 160, fill="#9c3b3b", width=4 * K)
    return img


def brann():  # a dwarf: green field, big red beard
    img, d = canvas("#23824a")
    d.ellipse(box(64, 50, 192, 186), fill="#e9b48e")
    d.polygon([(v * K) for v in (64, 130, 192, 130, 170, 226, 128, 246, 86, 226)], fill="#b5451b")  # beard
    d.pieslice(box(60, 30, 196, 140), 180, 360, fill="#6b4a2b")  # hood
    d.ellipse(box(114, 116, 142, 144), fill="#d98b6a")  # nose
    eyes(d, 104, 26, 6)
    d.rectangle(box(88, 86, 120, 92), fill="#7a2e12")
    d.rectangle(box(136, 86, 168, 92), fill="#7a2e12")
    return img


def cyra():  # a wizard: purple field, pointed hat with a star
    img, d = canvas("#7c3aed")
    d.ellipse(box(78, 96, 178, 206), fill="#f3d3b8")
    d.polygon([(v * K) for v in (50, 112, 206, 112, 150, 8)], fill="#2b1d5c")  # hat
    d.rectangle(box(50, 104, 206, 118), fill="#3b2a7a")
    d.regular_polygon((126 * K, 66 * K, 12 * K), 5, fill="#facc15")  # star
    d.rectangle(box(64, 118, 82, 230), fill="#1f1f1f")  # hair
    d.rectangle(box(174, 118, 192, 230), fill="#1f1f1f")
    eyes(d, 146, 20, 6, "#3b7d3b")
    d.arc(box(110, 170, 146, 190), 20, 160, fill="#9c3b3b", width=4 * K)
    return img


def goblin():  # a goblin: dark red field, green face, long ears, teeth
    img, d = canvas("#7f1d1d")
    d.polygon([(v * K) for v in (70, 110, 10, 70, 76, 150)], fill="#5f9e3a")  # ears
    d.polygon([(v * K) for v in (186, 110, 246, 70, 180, 150)], fill="#5f9e3a")
    d.ellipse(box(64, 62, 192, 206), fill="#6fb843")
    eyes(d, 118, 28, 7, "#b91c1c", "#fde047")
    d.polygon([(v * K) for v in (88, 96, 118, 108, 90, 106)], fill="#2f4f1f")  # brows
    d.polygon([(v * K) for v in (168, 96, 138, 108, 166, 106)], fill="#2f4f1f")
    d.chord(box(92, 150, 164, 190), 0, 180, fill="#3a1010")  # grin
    for x in (104, 122, 140):
        d.polygon([(v * K) for v in (x, 170, x + 10, 170, x + 5, 182)], fill="#fffbe6")
    return img


def ogre():  # an ogre: brown field, grey-green face, one tusk, heavy brow
    img, d = canvas("#5b3a1e")
    d.ellipse(box(40, 40, 216, 232), fill="#8fa07a")
    d.rectangle(box(64, 92, 192, 112), fill="#6d7d5c")  # brow
    eyes(d, 126, 32, 6, "#3b2a14", "#e8e2c8")
    d.ellipse(box(108, 132, 148, 164), fill="#7b8c66")  # nose
    d.chord(box(84, 170, 172, 214), 180, 360, fill="#2e2616")
    d.polygon([(v * K) for v in (98, 192, 110, 192, 104, 168)], fill="#fffbe6")  # tusks
    d.polygon([(v * K) for v in (146, 192, 158, 192, 152, 168)], fill="#fffbe6")
    return img


PICTURES = {"aria": aria, "brann": brann, "cyra": cyra, "goblin": goblin, "ogre": ogre}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, draw in PICTURES.items():
        draw().resize((SIZE, SIZE), Image.LANCZOS).save(OUT / f"{name}.png", optimize=True)
        print(OUT / f"{name}.png")


if __name__ == "__main__":
    main()
