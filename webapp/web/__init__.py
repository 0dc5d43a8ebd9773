"""The HTTP side: blueprints (lobby, the game pages and sheets, the JSON API, map files, the rules help),
the access gate before every request, security headers and CSRF, error pages, and where the assets are."""

from __future__ import annotations

from flask import current_app, session

from ..game import keys
from ..live.hub import Hub

ROLES = ("gm", "player", "screen")


def hub() -> Hub:
    return current_app.extensions["tacmap"]


def remember_key(role: str, game_id: str, key: str) -> None:
    """Keep a browser's key for a game in its session (on the server: webapp/web/sessions.py)."""
    keys = dict(session.get(role) or {})
    keys[game_id] = key
    session[role] = keys
    session.permanent = True


def remembered_key(role: str, game_id: str) -> str | None:
    return (session.get(role) or {}).get(game_id)


def unlock(game_id: str, stored: str) -> None:
    """This browser session gave the GM password (or set it): its GM key works until the session ends."""
    unlocked = dict(session.get("gm_unlocked") or {})
    unlocked[game_id] = keys.proof_of(stored)
    session["gm_unlocked"] = unlocked
