"""Hand-outs and token pictures: what the GM gives the table besides the map (#27).

Pure, like ``table``: commands -> events -> state. The files themselves are
written by ``webapp.storage.pictures`` (checked like a map's picture), which
then commits ``handout_added`` or ``picture_added`` made here.

A **hand-out** is a title, a text and/or a picture. ``show_handout`` gives it
to the table screen and to players (``to``: ``"screen"``, player ids, or
``"everyone"``, which also reaches players who join later) and opens it there:
the screen shows it large over the map, a phone in a panel. ``hide_handout``
closes it everywhere; the players it was shown to keep it in their list and
may open it again. ``remove_handout`` takes it from everyone. Who was never
shown a hand-out never receives it: not in a page, an update, ``/state``, nor
its picture's address (:func:`may_fetch`).

A **token picture** is uploaded by the GM (any token) or a player (for their
own token); ``update_token`` ``picture`` sets it (an id, or null). It is
served to whoever sees a token that wears it, so a hidden token's picture
reaches no player.
"""

from __future__ import annotations

import re
import secrets
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..bridge import fog
from ..core import text
from ..core.feature import Feature
from ..core.model import Event, Rejected
from rules.text import joined, say
from ..core.text import N_

if TYPE_CHECKING:
    from ..core.model import Actor, Game, Token

MAX_HANDOUTS = 200
MAX_PICTURES = 500  # token pictures a game keeps
MAX_PLAYER_PICTURES = 12  # uploaded by one player
MAX_TITLE = 80
MAX_BODY = 4000
EVERYONE = "everyone"
SCREEN = "screen"
#: markup in a title or a text is refused, not stored escaped: a hand-out is read aloud and shown big
_MARKUP = re.compile(r"<\s*[A-Za-z/!?]")

Id = text.Id


class _Command(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, strict=True)


class ShowHandout(_Command):
    type: Literal["show_handout"]
    handout_id: Id
    to: Literal["everyone"] | Annotated[list[Id], Field(min_length=1, max_length=60)]


class HideHandout(_Command):
    type: Literal["hide_handout"]
    handout_id: Id


class RemoveHandout(_Command):
    type: Literal["remove_handout"]
    handout_id: Id


COMMANDS = (ShowHandout, HideHandout, RemoveHandout)
EVENTS = ("handout_added", "handout_shown", "handout_hidden", "handout_removed", "picture_added")


# --- who gets what ---------------------------------------------------------------


def recipient(actor: "Actor") -> str | None:
    """What a hand-out's ``to`` names this audience by: ``"screen"``, a player id; None for the GM."""
    if actor.role == "screen":
        return SCREEN
    return actor.player_id if actor.role == "player" else None


def _names(listed: list[str], actor: "Actor") -> bool:
    if actor.role == "gm":
        return bool(listed)
    return EVERYONE in listed or recipient(actor) in listed


def reaches(handout: dict, actor: "Actor") -> bool:
    """Whether this audience has been given the hand-out (the GM has them all)."""
    return actor.role == "gm" or _names(handout["to"], actor)


def is_open(handout: dict, actor: "Actor") -> bool:
    """Whether it is open on this audience's screen now (for the GM: open anywhere)."""
    return _names(handout["open"], actor)


def picture_url(game: "Game", name: str) -> str:
    return f"/games/{game.id}/pictures/{name}"


def view(game: "Game", actor: "Actor") -> list[dict]:
    """The hand-outs this audience holds, newest shown first, as the state and the pages show them."""
    out = []
    for h in game.handouts.values():
        if not reaches(h, actor):
            continue
        pic = h.get("picture")
        item = {"id": h["id"], "title": h["title"], "text": h["text"], "open": is_open(h, actor),
                "shown_seq": h.get("shown_seq"),
                "picture": None if not pic else {"url": picture_url(game, pic["name"]), "width": pic["width"],
                                                 "height": pic["height"]}}
        if actor.role == "gm":
            item |= {"to": list(h["to"]), "open_for": list(h["open"])}
        out.append(item)
    out.sort(key=lambda h: (h["shown_seq"] or 0, h["id"]), reverse=True)
    return out


def on_screen(game: "Game", actor: "Actor") -> dict | None:
    """The hand-out the table screen shows over the map: the newest one open for it."""
    return next((h for h in view(game, actor) if h["open"]), None) if actor.role == "screen" else None


def token_picture(game: "Game", token: "Token") -> dict | None:
    """A token's picture as drawn on its disc (``url``), or None."""
    pic = game.pictures.get(token.picture) if token.picture else None
    return None if pic is None else {"id": pic["id"], "url": picture_url(game, pic["name"])}


def pictures_view(game: "Game", actor: "Actor") -> dict[str, str]:
    """picture id -> address, of the pictures this audience's tokens wear (the GM's: all of them)."""
    if actor.role == "gm":
        return {p["id"]: picture_url(game, p["name"]) for p in game.pictures.values()}
    worn = {t.picture for t in fog.visible_tokens(game, actor) if t.picture}
    return {pid: picture_url(game, game.pictures[pid]["name"]) for pid in worn if pid in game.pictures}


def may_fetch(game: "Game", actor: "Actor", name: str) -> bool:
    """A picture file of a hand-out this audience was given, or of a token it sees (the GM: any of the game's)."""
    if actor.role == "gm":
        return (any((h.get("picture") or {}).get("name") == name for h in game.handouts.values())
                or any(p["name"] == name for p in game.pictures.values()))
    if any(reaches(h, actor) and (h.get("picture") or {}).get("name") == name for h in game.handouts.values()):
        return True
    named = {pid for pid, p in game.pictures.items() if p["name"] == name}
    return bool(named) and any(t.picture in named for t in fog.visible_tokens(game, actor))


# --- events made by an upload (webapp/storage/pictures.py) --------------------------


def check_words(value: str | None, where: str, limit: int, single_line: bool) -> str:
    """A title or a text as the table keeps it: clean, within ``limit``, no markup; Rejected otherwise."""
    value = (value or "").strip()
    if len(value) > limit:
        raise Rejected(N_("%(where)s: %(n)s characters at most"), where=where, n=limit)
    text.check(value, where, single_line=single_line)
    if _MARKUP.search(value):
        raise Rejected(N_("%(where)s: HTML is not allowed (take out the < >)"), where=where)
    return value


def handout_added(game: "Game", title: str | None, body: str | None, picture: dict | None) -> Event:
    if len(game.handouts) >= MAX_HANDOUTS:
        raise Rejected(N_("a game holds %(n)s hand-outs at most; remove one first"), n=MAX_HANDOUTS)
    title = check_words(title, "title", MAX_TITLE, True)
    body = check_words(body, "text", MAX_BODY, False)
    if not title:
        raise Rejected(N_("title: a hand-out needs a title"))
    if not body and picture is None:
        raise Rejected(N_("a hand-out needs a picture (field 'file') or a text (field 'text')"))
    handout = {"id": _new_id(game.handouts, "h"), "title": title, "text": body, "picture": picture,
               "to": [], "open": [], "shown_seq": None}
    return Event("handout_added", {"handout": handout})


def picture_added(game: "Game", actor: "Actor", picture: dict, label: str, token_id: str | None) -> list[Event]:
    """A token picture in the game's library; set on ``token_id`` at once when one is named (a player
    must name one of their own tokens)."""
    token = None
    if token_id:
        token = game.tokens.get(token_id)
        if token is None or not fog.may_see(game, actor, token):
            raise Rejected(N_("no token %(id)s in this game"), id=repr(token_id))
        if actor.role != "gm" and token.owner != actor.player_id:
            raise Rejected(N_("%(name)s is not yours"), name=token.name)
    elif actor.role != "gm":
        raise Rejected(N_("token_id: name one of your tokens for the picture"))
    if len(game.pictures) >= MAX_PICTURES:
        raise Rejected(N_("a game holds %(n)s token pictures at most"), n=MAX_PICTURES)
    if actor.role != "gm" and sum(p["by"] == actor.player_id for p in game.pictures.values()) >= MAX_PLAYER_PICTURES:
        raise Rejected(N_("you have uploaded %(n)s pictures already: ask the GM"), n=MAX_PLAYER_PICTURES)
    record = {"id": _new_id(game.pictures, "pic"), **picture, "label": label[:40],
              "by": actor.player_id if actor.role == "player" else None}
    events = [Event("picture_added", {"picture": record})]
    if token is not None and token.picture != record["id"]:
        events.append(Event("token_updated", {"token_id": token.id, "changes": {"picture": record["id"]}}))
    return events


def check_picture_choice(game: "Game", actor: "Actor", picture_id: str | None) -> None:
    """``update_token`` ``picture``: one of the game's (a player: one they uploaded), or None."""
    if picture_id is None:
        return
    pic = game.pictures.get(picture_id)
    if pic is None or (actor.role != "gm" and pic["by"] != actor.player_id):
        raise Rejected(N_("no picture %(id)s in this game") if actor.role == "gm"
                       else N_("no picture %(id)s of yours in this game"), id=repr(picture_id))


def _new_id(taken: dict, prefix: str) -> str:
    while True:
        new = f"{prefix}-{secrets.token_hex(4)}"
        if new not in taken:
            return new


# --- commands ----------------------------------------------------------------------


def _handout(game: "Game", handout_id: str) -> dict:
    found = game.handouts.get(handout_id)
    if found is None:
        raise Rejected(N_("no hand-out %(id)s in this game"), id=repr(handout_id))
    return found


def decide(game: "Game", cmd: Any, actor: "Actor") -> list[Event]:
    if actor.role != "gm":
        raise Rejected(N_("only the GM can show hand-outs"))
    h = _handout(game, cmd.handout_id)
    if isinstance(cmd, ShowHandout):
        to = [EVERYONE] if cmd.to == EVERYONE or EVERYONE in cmd.to else list(dict.fromkeys(cmd.to))
        for who in to:
            if who not in (EVERYONE, SCREEN) and who not in game.players:
                raise Rejected(N_("to: no player %(id)s in this game (give \"screen\", player ids or \"everyone\")"),
                               id=repr(who))
        return [Event("handout_shown", {"handout_id": h["id"], "to": to})]
    if isinstance(cmd, HideHandout):
        if not h["open"]:
            raise Rejected(N_("%(title)s is not shown anywhere"), title=h["title"])
        return [Event("handout_hidden", {"handout_id": h["id"]})]
    return [Event("handout_removed", {"handout_id": h["id"], "title": h["title"]})]


def evolve(game: "Game", event: Event, log) -> None:
    d = event.data
    kind = event.type
    if kind == "handout_added":
        game.handouts[d["handout"]["id"]] = dict(d["handout"])
        log(say("the GM made a hand-out: {title}", title=d["handout"]["title"]), "gm", None)
    elif kind == "handout_shown":
        h = game.handouts[d["handout_id"]]
        h["to"] = list(dict.fromkeys([*h["to"], *d["to"]]))
        h["open"] = list(dict.fromkeys([*h["open"], *d["to"]]))
        h["shown_seq"] = game.seq
        log(say("the GM showed the hand-out {title} to {names}", title=h["title"], names=joined([_who(game, w) for w in d["to"]], ", ")),
            "gm", None)
    elif kind == "handout_hidden":
        h = game.handouts[d["handout_id"]]
        h["open"] = []
        log(say("the GM put the hand-out {title} away", title=h["title"]), "gm", None)
    elif kind == "handout_removed":
        game.handouts.pop(d["handout_id"], None)
        log(say("the GM removed the hand-out {title}", title=d["title"]), "gm", None)
    elif kind == "picture_added":
        game.pictures[d["picture"]["id"]] = dict(d["picture"])
    else:
        raise ValueError(f"unknown hand-out event {kind!r}")


FEATURE = Feature("handouts", COMMANDS, decide=dict.fromkeys(COMMANDS, decide), events=EVENTS, evolve=evolve)


def merge_player(game: "Game", gone: str, kept: str) -> None:
    """Player ``gone`` is merged into ``kept`` (``merge_players``): the hand-outs shown to ``gone`` are
    ``kept``'s now (open where they were open), and so are the token pictures ``gone`` uploaded."""
    for h in game.handouts.values():
        for field in ("to", "open"):
            if gone in h[field]:
                h[field] = list(dict.fromkeys(kept if who == gone else who for who in h[field]))
    for pic in game.pictures.values():
        if pic.get("by") == gone:
            pic["by"] = kept


def _who(game: "Game", who: str) -> str:
    if who in (EVERYONE, SCREEN):
        return "the table screen" if who == SCREEN else "everyone"
    player = game.players.get(who)
    return player.name if player else who
