"""A token in words, for screen readers: its accessible name ("Ann, Bea's character, at C4, 2 wounds").

What each part comes from, the same for every game system:

- the name, as on the disc's label;
- what it is: a player's character ("Bea's character", or "player character" while nobody holds it), or
  "non-player character"; "large, 2 by 2 squares" for a token of more than one square;
- where: on a grid its square as a chess board names it, columns lettered from A at the left (Z, AA, AB...),
  rows numbered from 1 at the top, so "C4" is the third column, fourth row (a big token: its top-left
  square); on a zone map the zone it stands in ("in Ridge"), since the rules count zones, not squares;
- in a fight, "their turn" for the token whose turn it is;
- its wounds and conditions: the system's own badges (``rules.system.GameSystem.badges``, what every screen
  draws beside the token) of kind "wound" and "condition", in the rules' words ("2 wounds" in Savage Worlds and
  Tesseris, "HP 7/10" in GURPS Lite, "1/3 flesh wounds" in Phase/TN, "Shaken"); the resources (Bennies,
  ticks) are left out of the name;
- "hidden from players" on the GM's screen (no one else is sent a hidden token).
"""

from __future__ import annotations

from rules.text import Say, joined, say, say_n

from . import zonelayout
from ..core.model import Game, Token


def column_name(x: int) -> str:
    """A column's letters: 0 -> A, 25 -> Z, 26 -> AA, 27 -> AB."""
    letters = ""
    n = x + 1
    while n > 0:
        n, rest = divmod(n - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def square_name(x: int, y: int) -> str:
    """(2, 3) -> "C4"."""
    return f"{column_name(x)}{y + 1}" if x >= 0 and y >= 0 else f"({x}, {y})"


def where(token: Token, zones: list[dict] | None) -> Say:
    """"at C4", or on a zone map "in Ridge" (words: the reader's language, ``webapp.live.screens.language.words``)."""
    if zones is not None:
        zone = zonelayout.zone_at(zones, token.x, token.y)
        if zone is not None:
            return say("in {zone}", zone=zone["name"])
    return say("at {square}", square=square_name(token.x, token.y))


def what(game: Game, token: Token) -> Say:
    if token.kind == "pc":
        player = game.players.get(token.owner or "")
        return say("{player}'s character", player=player.name) if player else say("player character")
    return say("non-player character")


def token_name(game: Game, token: Token, zones: list[dict] | None, marks: list[dict] = ()) -> Say:
    """The token's accessible name, as words (a ``str`` holding the English, put in the reader's language by
    ``webapp.live.screens.language.words``); ``marks``: its badges (``fighting.badges``), ``zones``: the map's it
    stands on."""
    parts: list = [token.name, what(game, token)]
    size = token.size or 1
    if size > 1 and game.board.grid.hex and zones is None:  # a big token on hexes covers 3 or 7 (#58)
        parts.append(say_n("large, {n} hex", "large, {n} hexes", len(game.board.grid.footprint((token.x, token.y), size))))
    elif size > 1:
        parts.append(say("large, {size} by {size} squares", size=size))
    parts.append(where(token, zones))
    if game.combat and game.combat.get("current") == token.id:
        parts.append(say("their turn"))
    parts += [m["label"] for m in marks if m.get("kind") in ("wound", "condition") and m.get("label")]
    if token.hidden:
        parts.append(say("hidden from players"))
    return joined(parts, ", ")
