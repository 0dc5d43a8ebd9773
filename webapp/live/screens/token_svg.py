"""One token on the map's SVG: its ``<g>``, built here rather than by a Jinja partial (#37, #32).

A token is the part every move redraws: the moved token, for each way an audience sees it (the GM, its owner,
everyone else) and each language at the table. Drawn by a template it cost about 0.1 ms a time, most of it
Jinja's own steps round thirty small values (each looked up, escaped and wrapped); built here, the parts that
are the same in every language (its place, classes, data and disc: :func:`look`) are made once per update for
the audiences that see the token alike, and each language adds only its words (:func:`svg`).
``templates/_tokens.html`` draws a layer with it (``token_svg``), ``render.fragments`` one moved token.

What is drawn, and why:

- a disc over ``size`` x ``size`` drawing units (on hexes round its 1, 3 or 7 hexes, ``drawing.py``) in the
  token's colour, with its picture cropped to the disc (``#token-disc`` in ``_map.html``) or what is written on it:
  "Goblin 3" shows G3, so numbered foes are told apart from across the room, else the name's first two letters;
- whose turn it is: a wide ring round the disc that turns (app.css), unlike any owner's ring;
- told apart without colour (app.css): yours a double ring, a foe a dark diamond on its rim;
- its name under the disc, and up to three badges (the rules' marks: wounds, conditions...) and "+N";
  map.js lays names and badges out in pills above the tokens (#layer-labels), pushed clear of each other: what
  is here is their source and the fallback without script;
- for screen readers a button whose accessible name starts with what is written on its disc, when that is shown
  (WCAG 2.5.3, label in name), then the token in words (``describe.token_name``) and ", yours".
"""

from __future__ import annotations

from html import escape as _html_escape
from types import SimpleNamespace

from markupsafe import Markup

from ...game.core.text import N_
from . import language

#: a token's disc sits this far inside its box, all round (its circle's radius is half the box less it)
DISC_INSET = 0.07


def escape(text: str) -> str:
    """Text in markup, quotes too, as markupsafe writes it (``&#34;``, ``&#39;``) as a plain ``str`` (markupsafe's
    ``escape`` wraps each in a ``Markup``: three times the cost, a dozen times a token)."""
    return _html_escape(text).replace("&quot;", "&#34;").replace("&#x27;", "&#39;")


#: the words of a token, message ids of the "messages" domain (the same as the template they came from had), said in
#: the reader's language by ``language.text``
TOKEN = N_("token")
YOURS = N_(", yours")
HIDDEN = N_(" (hidden from players)")
OOB = ' hx-swap-oob="true"'
FOCUSABLE = ' tabindex="0"'
FOE_MARK = '<path class="foe-mark" d="M 0.16 0.02 L 0.3 0.16 L 0.16 0.3 L 0.02 0.16 Z"/>'


def disc_text(name: str) -> str:
    """What is written on a token's disc: "Goblin 3" -> "G3", else the name's first two letters."""
    words = name.rsplit(" ", 1)
    if len(words) == 2 and words[1].isdigit():
        return words[0][:1] + words[1]
    return name[:2]


def look(token, view: str, acting: bool, translate: str, picture: str | None) -> SimpleNamespace:
    """What is drawn of ``token`` the same in every language, for an audience whose view of it is ``view``
    (``context.token_view``: "gm", "mine" or "other"): the ``<g>``'s opening without its words (``open``), the
    disc with its rings, marks and name (``disc``), and what the words read (``text``: the disc's letters,
    ``picture``, ``mine``, ``size``). ``translate``: the ``<g>``'s place (``Drawing.token_translate``)."""
    size = token.size or 1
    mine = view == "mine"
    half = size / 2
    name = escape(token.name)
    text = disc_text(token.name)
    classes = "token " + token.kind + (" movable" if view != "other" else "") + (" mine" if mine else "") \
        + (" hidden-token" if token.hidden else "") + (" acting" if acting else "") \
        + (" yielded" if token.yielded else "")  # a foe that surrendered (#67): drawn faded, its badge says it
    opening = (f'<g id="token-{escape(token.id)}" class="{escape(classes)}" data-token-id="{escape(token.id)}" '
               f'data-x="{token.x}" data-y="{token.y}" data-size="{size}" data-name="{name}" '
               f'data-color="{escape(token.color)}" transform="translate({translate})"')
    parts = [f'<rect class="token-hit" x="0" y="0" width="{size}" height="{size}"/>']
    if acting:
        parts.append(f'<circle class="acting-halo" cx="{half}" cy="{half}" r="{half - 0.01}"/>'
                     f'<circle class="acting-ring" cx="{half}" cy="{half}" r="{half - 0.01}" pathLength="60"/>')
    parts.append(f'<circle class="token-body" cx="{half}" cy="{half}" r="{half - DISC_INSET}" fill="{escape(token.color)}"/>')
    if picture:
        parts.append(f'<image class="token-picture" href="{escape(picture)}" x="0.13" y="0.13" width="{size - 0.26}" '
                     f'height="{size - 0.26}" preserveAspectRatio="xMidYMid slice" clip-path="url(#token-disc)"/>')
    else:
        parts.append(f'<text class="token-initials" x="{half}" y="{half}" '
                     f'font-size="{(0.4 if len(text) < 3 else 0.3) * size}">{escape(text)}</text>')
    if mine:
        parts.append(f'<circle class="mine-ring" cx="{half}" cy="{half}" r="{half - 0.2}"/>')
    if token.kind == "npc":
        parts.append(FOE_MARK)
    parts.append(f'<text class="token-label" x="{half}" y="{size + 0.22}">{name}</text>')
    return SimpleNamespace(open=opening, disc="".join(parts), text=text, picture=picture, mine=mine, size=size)


def badges(marks: list[dict], size) -> str:
    """Up to three of the rules' marks beside the disc (their words in the reader's language), and "+N"."""
    if not marks:
        return ""
    label = escape(", ".join(str(m["label"]) for m in marks))
    out = [f'<g class="badges" aria-label="{label}">']
    for i, b in enumerate(marks[:3]):
        width = 0.13 * len(b["label"]) + 0.2
        out.append(f'<g class="badge {escape(b["kind"])}" transform="translate({size - 0.1} {-0.05 + i * 0.34})">'
                   f'<rect x="0" y="0" width="{width:.2f}" height="0.3" rx="0.15"/>'
                   f'<text x="0.1" y="0.22">{escape(b["label"])}</text></g>')
    if len(marks) > 3:
        out.append(f'<g class="badge more" transform="translate({size - 0.1} {-0.05 + 3 * 0.34})"><rect x="0" y="0" '
                   f'width="0.5" height="0.3" rx="0.15"/><text x="0.1" y="0.22">+{len(marks) - 3}</text></g>')
    out.append("</g>")
    return "".join(out)


def svg(drawn: SimpleNamespace, token, marks: list[dict], name_words: str, where_words: str, oob: bool,
        focusable: bool) -> Markup:
    """The token's ``<g>``: ``drawn`` (:func:`look`) with the words of the reader's language round it: its
    accessible name (``name_words``: ``describe.token_name``), where it stands (``where_words``), its title and
    its badges (``marks``, their labels in that language). ``focusable``: it takes the keyboard's focus (not on a
    map the GM prepares)."""
    text = language.text
    label = ("" if drawn.picture else drawn.text + ", ") + name_words + (text(YOURS) if drawn.mine else "")
    title = escape(token.name) + (escape(text(HIDDEN)) if token.hidden else "")
    return Markup(
        f'{drawn.open}{OOB if oob else ""}{FOCUSABLE if focusable else ""} role="button" '
        f'aria-roledescription="{escape(text(TOKEN))}" aria-label="{escape(label)}" data-where="{escape(where_words)}">'
        f'<title>{title}</title>{drawn.disc}{badges(marks, drawn.size)}</g>')
