"""What a phone needs to keep the game on its home screen: the web app manifest and the way back to its seat.

One manifest for the whole server (``/manifest.webmanifest``, ``application/manifest+json``): the icons
(static/icons, drawn by scripts/draw_app_icons.py), full screen (``display: standalone``) and a
``start_url`` of ``/resume``, which sends this device to the play page of the game it last played in. The
seat's key is in this browser's server-side session (``remember_key``), so the icon opens the player's own
seat; a device with no game yet lands in the lobby.
"""

from __future__ import annotations

import json

from flask import Blueprint, redirect, session, url_for

from . import hub, remembered_key

bp = Blueprint("device", __name__)
LAST_PLAYED = "last_played"  # the session's game id of the last play page this device opened


def played(game_id: str) -> None:
    """This device opened its seat in this game: the home-screen icon brings it back here."""
    if session.get(LAST_PLAYED) != game_id:
        session[LAST_PLAYED] = game_id


@bp.get("/manifest.webmanifest")
def manifest():
    icons = [{"src": url_for("static", filename=f"icons/tacmap-{size}.png"), "sizes": f"{size}x{size}",
              "type": "image/png", "purpose": "any maskable"} for size in (192, 512)]
    body = {
        "name": "tacmap battle map",
        "short_name": "tacmap",
        "description": "The live battle map of your table's game.",
        "id": "/",
        "start_url": url_for("device.resume"),
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        "background_color": "#23262b",
        "theme_color": "#23262b",
        "icons": icons,
    }
    return json.dumps(body, indent=1), 200, {"Content-Type": "application/manifest+json",
                                             "Cache-Control": "no-cache"}


@bp.get("/resume")
def resume():
    """The home-screen icon's address: the seat this device last played in, while its key still works."""
    game_id = session.get(LAST_PLAYED)
    if isinstance(game_id, str):
        key = remembered_key("player", game_id)
        if key and hub().store.game(game_id) is not None and hub().authenticate(game_id, key) is not None:
            return redirect(url_for("game.play", game_id=game_id))
    return redirect(url_for("lobby.index"))
