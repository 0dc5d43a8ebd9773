"""Uploads that become events: a map's picture, a Universal VTT map, a hand-out, a token picture. Each writes its
file first (webapp/storage/pictures.py: checked, within the game's budget, kept in the database too on
PostgreSQL), then commits its events through the hub; if the commit is refused, a file this upload created is
removed again, so nothing half-imported remains (no event, no file).

Called by the pages' upload routes (webapp/web/maps.py, webapp/web/handouts.py), ``tacmap import-map`` and the
demo game's token pictures. The decoding runs off the loop, counted against ``asker`` (the route's seat and
address; None: the server's own), as webapp/storage/pictures.py's ``picture_work`` says (#57).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..game.board import handouts, maps, uvtt
from ..game.core.model import Rejected
from ..game.core.text import N_
from ..storage import pictures
from ..storage.pictures import Asker, checked, map_name, picture_record, picture_work

if TYPE_CHECKING:
    from ..game.core.model import Actor
    from .hub import Hub


class NotImported(Rejected):
    """A Universal VTT file refused; ``reason``: the UvttError, for the web layer to say in the sender's language."""

    def __init__(self, reason: uvtt.UvttError) -> None:
        super().__init__(N_("not imported: %(reason)s"), reason=reason)  # (said in the reader's language too)
        self.reason = reason


def _commit_with_file(hub: "Hub", game_id: str, picture: uvtt.Picture | None, decide):
    """Store the picture, then commit; a refused commit leaves no file behind that it created."""
    data_dir = hub.app.config["DATA_DIR"]
    path, created = (pictures.store(data_dir, game_id, picture, hub.store) if picture else (None, False))
    try:
        return hub.commit(game_id, decide)
    except BaseException:
        if created:
            pictures.forget(data_dir, game_id, path, hub.store)
        raise


def import_uvtt(hub: "Hub", game_id: str, actor: "Actor", raw: bytes, name: str, asker: Asker | None = None) -> dict:
    """Import a Universal VTT file as a new map and show it to everyone.

    Returns ``{"map_id", "walls", "doors", "seq"}``; Rejected names what is wrong.
    """
    if actor.role != "gm":
        raise Rejected(N_("only the GM can import maps"))
    if hub.store.game(game_id) is None:
        raise Rejected(N_("no game %(id)s"), id=repr(game_id))
    try:
        parsed = picture_work(asker, uvtt.parse, raw)  # its picture decoded and written again, off the loop
    except uvtt.UvttError as exc:
        raise NotImported(exc) from None
    picture = picture_record(parsed.picture) if parsed.picture else None
    done = _commit_with_file(hub, game_id, parsed.picture, lambda game: maps.imported(
        game, name, parsed.board, picture, parsed.pixels_per_grid, parsed.lights, parsed.ambient))
    made = done.events[0].data
    return {"map_id": made["map_id"], "name": made["name"], "walls": parsed.walls, "doors": parsed.doors,
            "lights": len(parsed.lights), "ambient": parsed.ambient, "seq": done.seq}


def upload_picture(hub: "Hub", game_id: str, actor: "Actor", map_id: str | None, data: bytes,
                   asker: Asker | None = None) -> dict:
    """A background picture for a map (None: the active one), fitted to the map's width."""
    if actor.role != "gm":
        raise Rejected(N_("only the GM can set a map's picture"))
    if hub.store.game(game_id) is None:
        raise Rejected(N_("no game %(id)s"), id=repr(game_id))
    picture = checked(data, asker=asker)
    record = picture_record(picture)

    def decide(game):
        return [maps.picture_set(game, map_id, record)]

    done = _commit_with_file(hub, game_id, picture, decide)
    d = done.events[0].data
    return {"map_id": d["map_id"], "picture": record, "align": d["align"], "seq": done.seq}


def add_handout(hub: "Hub", game_id: str, actor: "Actor", data: bytes | None, title: str, body: str,
                asker: Asker | None = None) -> dict:
    """A hand-out (a picture, checked as a map's, and/or a text, with a title), shown to nobody yet (#27)."""
    if actor.role != "gm":
        raise Rejected(N_("only the GM can make hand-outs"))
    if hub.store.game(game_id) is None:
        raise Rejected(N_("no game %(id)s"), id=repr(game_id))
    handouts.check_words(title, "title", handouts.MAX_TITLE, True)  # before any file is written
    handouts.check_words(body, "text", handouts.MAX_BODY, False)
    picture = checked(data, asker=asker) if data is not None else None
    record = picture_record(picture) if picture else None
    done = _commit_with_file(hub, game_id, picture, lambda game: [handouts.handout_added(game, title, body, record)])
    return {"handout_id": done.events[0].data["handout"]["id"], "seq": done.seq}


def add_token_picture(hub: "Hub", game_id: str, actor: "Actor", data: bytes, filename: str,
                      token_id: str | None, asker: Asker | None = None) -> dict:
    """A token picture (the GM: for the library, or a token; a player: for one of their tokens), set on
    ``token_id`` at once when given (#27)."""
    if actor.role not in ("gm", "player"):
        raise Rejected(N_("the table screen only shows the map"))
    if hub.store.game(game_id) is None:
        raise Rejected(N_("no game %(id)s"), id=repr(game_id))
    if actor.role == "player" and not token_id:
        raise Rejected(N_("token_id: name one of your tokens for the picture"))
    picture = checked(data, asker=asker)
    label = map_name(filename) if filename else "Picture"
    label = "Picture" if label == "Imported map" else label
    done = _commit_with_file(hub, game_id, picture, lambda game: handouts.picture_added(
        game, actor, picture_record(picture), label, token_id))
    out = {"picture_id": done.events[0].data["picture"]["id"], "seq": done.seq}
    return out | ({"token_id": token_id} if token_id else {})
